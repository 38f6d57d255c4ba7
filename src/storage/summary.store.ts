import { chatSummarySchema } from '../core/model';
import type { SummaryStore } from '../core/ports';
import type { CarrelDb } from './db';
import { guardStorage } from './guard';
import { parseStored } from './parse-row';

/** Summaries of long chats: added, listed per session, marked undone (never rewritten otherwise). */
export function createSummaryStore(db: CarrelDb): SummaryStore {
  return {
    add: (summary) =>
      guardStorage(db, async () => {
        const record = parseStored(chatSummarySchema, summary, 'Summary');
        await db.summaries.add(record);
        return record;
      }),
    listBySession: (sessionId) =>
      guardStorage(db, async () =>
        (await db.summaries.where('sessionId').equals(sessionId).sortBy('createdAt')).map((row) =>
          parseStored(chatSummarySchema, row, 'Stored summary'),
        ),
      ),
    markUndone: (id, at) =>
      guardStorage(db, async () => {
        await db.summaries.update(id, { undoneAt: at });
      }),
  };
}
