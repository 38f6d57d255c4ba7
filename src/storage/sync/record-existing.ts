import type { Transaction } from 'dexie';
import { DELETED_FIELD, formatStamp } from '../../core/sync/record-version';
import { CLOCK_KEY, DEVICE_KEY, nextLocalRevision, type SyncRecordRow } from './change-tracking';
import { SYNCED_TABLES, syncRecordKey, toSyncedBody } from './synced-tables';

/** A version that lost a merge, kept so nothing an edit wrote is dropped. */
export interface SyncHistoryRow {
  id: string;
  recordKey: string;
  table: string;
  recordId: string;
  rev: string;
  device: string;
  changedAt: number;
  isDeleted: boolean;
  body: Record<string, unknown>;
  /** When this device merged it away. */
  mergedAt: number;
}

/**
 * Where change tracking starts (the upgrade to sync, or sync's first setup on a device): every
 * row already stored gets a record, pending, stamped now by this (new) device, so the first sync
 * sends everything. Returns the device's id.
 */
export async function recordExistingRows(tx: Transaction, now: number): Promise<string> {
  const device = crypto.randomUUID();
  const stamp = formatStamp(now, device);
  const records = tx.table<SyncRecordRow, string>('syncRecords');
  for (const table of SYNCED_TABLES) {
    const source = tx.table<Record<string, unknown>, string>(table);
    const primaryKey = source.schema.primKey.name;
    const created: SyncRecordRow[] = [];
    await source.each((row) => {
      const id = row[primaryKey];
      if (typeof id !== 'string') return;
      const body = toSyncedBody(table, row);
      const stamps = Object.fromEntries(
        [...Object.keys(body), DELETED_FIELD].map((field) => [field, stamp]),
      );
      created.push({
        key: syncRecordKey(table, id),
        table,
        id,
        rev: nextLocalRevision(undefined),
        ancestors: [],
        isDeleted: false,
        stamps,
        device,
        changedAt: now,
        pending: 1,
      });
    });
    await records.bulkPut(created);
  }
  await tx.table('syncState').bulkPut([
    { key: DEVICE_KEY, value: device },
    { key: CLOCK_KEY, value: now },
  ]);
  return device;
}
