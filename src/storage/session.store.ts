import { sessionSchema, type Session, type SessionId } from '../core/model';
import type { Clock, SessionStore } from '../core/ports';
import type { CarrelDb } from './db';
import { StorageError } from './errors';
import { guardStorage } from './guard';
import { parseStored } from './parse-row';

export function createSessionStore(db: CarrelDb, clock: Clock): SessionStore {
  return {
    create: (session) =>
      guardStorage(db, async () => {
        await db.sessions.add(parseStored(sessionSchema, session, `Session ${session.id}`));
      }),

    get: (id) =>
      guardStorage(db, async () => {
        const row = await db.sessions.get(id);
        return row === undefined
          ? undefined
          : parseStored(sessionSchema, row, `Stored session ${id}`);
      }),

    /** Newest activity first, as the sidebar shows them. */
    list: () =>
      guardStorage(db, async () => {
        const rows = await db.sessions.orderBy('updatedAt').reverse().toArray();
        return rows.map((row) => parseStored(sessionSchema, row, `Stored session ${row.id}`));
      }),

    update: (id, patch) =>
      guardStorage(db, () =>
        db.transaction('rw', db.sessions, async () => {
          const row = await db.sessions.get(id);
          if (row === undefined)
            throw new StorageError('not_found', `Session ${id} no longer exists.`);
          const next: Session = parseStored(
            sessionSchema,
            { ...row, ...patch, id: row.id, version: row.version + 1, updatedAt: clock.now() },
            `Session ${id}`,
          );
          await db.sessions.put(next);
          return next;
        }),
      ),

    /** Deletes the session with its messages and usage records, in one transaction. */
    delete: (id: SessionId) =>
      guardStorage(db, () =>
        db.transaction('rw', [db.sessions, db.messages, db.usage, db.summaries], async () => {
          await db.messages.where('sessionId').equals(id).delete();
          await db.usage.where('sessionId').equals(id).delete();
          await db.summaries.where('sessionId').equals(id).delete();
          await db.sessions.delete(id);
        }),
      ),
  };
}
