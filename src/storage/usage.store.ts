import { z } from 'zod';
import { messageIdSchema, modelRefSchema, sessionIdSchema, usageSchema } from '../core/model';
import type { Clock, Ids, UsageStore } from '../core/ports';
import type { CarrelDb } from './db';
import { guardStorage } from './guard';
import { parseStored } from './parse-row';

export const usageRecordSchema = z.object({
  id: z.string().min(1),
  sessionId: sessionIdSchema,
  messageId: messageIdSchema,
  model: modelRefSchema,
  usage: usageSchema,
  createdAt: z.number(),
});

export function createUsageStore(db: CarrelDb, clock: Clock, ids: Ids): UsageStore {
  const parseRow = (row: unknown) => parseStored(usageRecordSchema, row, 'Stored usage record');
  return {
    record: (entry) =>
      guardStorage(db, async () => {
        const record = parseStored(
          usageRecordSchema,
          { ...entry, id: ids.newId(), createdAt: clock.now() },
          'Usage record',
        );
        await db.usage.add(record);
        return record;
      }),
    listBySession: (sessionId) =>
      guardStorage(db, async () =>
        (await db.usage.where('sessionId').equals(sessionId).sortBy('createdAt')).map(parseRow),
      ),
    listSince: (sinceMs) =>
      guardStorage(db, async () =>
        (await db.usage.where('createdAt').aboveOrEqual(sinceMs).sortBy('createdAt')).map(parseRow),
      ),
  };
}
