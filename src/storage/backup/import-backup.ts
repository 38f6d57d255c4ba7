/**
 * Importing a backup: parse and validate everything first, then write everything in one
 * transaction. A bad file changes nothing; a good one merges into what is already here, the
 * newer `updatedAt` winning for rows that exist on both sides.
 */
import { isSettingKey, mergeImportedProvider } from '../../core/model';
import type { BackupImportReport } from '../../core/ports';
import type { ChunkRow, CarrelDb, FileRow } from '../db';
import { StorageError } from '../errors';
import { guardStorage } from '../guard';
import { findImportedParentCycle, placeImportedRows } from '../message-lines';
import { toMessageRow } from '../message-rows';
import { describeIssues } from '../parse-row';
import { carrelBackupSchema, type CarrelBackup } from './backup-format';
import { decodeBase64 } from './base64';

/** Longest ordinary string a backup may hold (a pasted book fits; a runaway one does not). */
export const MAX_BACKUP_STRING_CHARS = 10_000_000;
/** Longest base64 blob: about 150 MB of file bytes. */
export const MAX_BACKUP_BLOB_BASE64_CHARS = 200_000_000;
/** Keys that could reach an object's prototype if some later code merged the value naively. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function invalidBackup(message: string): StorageError {
  return new StorageError(
    'invalid_data',
    `This is not a Carrel backup Carrel can import: ${message}`,
  );
}

/** Rejects forbidden keys and oversized strings anywhere, naming where they are. */
function checkJsonTree(root: unknown): void {
  const stack: { value: unknown; path: string[] }[] = [{ value: root, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop() as { value: unknown; path: string[] };
    if (typeof value === 'string') {
      const limit =
        path[path.length - 1] === 'blobBase64'
          ? MAX_BACKUP_BLOB_BASE64_CHARS
          : MAX_BACKUP_STRING_CHARS;
      if (value.length > limit)
        throw invalidBackup(
          `the text at "${path.join('.')}" is too long (${value.length} characters).`,
        );
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => stack.push({ value: item, path: [...path, String(index)] }));
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        if (FORBIDDEN_KEYS.has(key))
          throw invalidBackup(`the key "${key}" at "${[...path, key].join('.')}" is not allowed.`);
        stack.push({ value: child, path: [...path, key] });
      }
    }
  }
}

/** Parses and validates a backup file's text; the error names the first invalid path. */
export function parseBackup(text: string): CarrelBackup {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw invalidBackup(
      `the file is not complete JSON (${error instanceof Error ? error.message : String(error)}).`,
    );
  }
  checkJsonTree(json);
  if (
    typeof json === 'object' &&
    json !== null &&
    'format' in json &&
    json.format === 'carrel-backup' &&
    'version' in json
  ) {
    if (json.version !== 1)
      throw invalidBackup(
        `backup version ${String(json.version)} is not supported (this Carrel reads version 1).`,
      );
  }
  const parsed = carrelBackupSchema.safeParse(json);
  if (!parsed.success) throw invalidBackup(describeIssues(parsed.error.issues, json));
  return parsed.data;
}

interface Decoded {
  files: FileRow[];
  chunks: ChunkRow[];
}

function decodeBinaries(backup: CarrelBackup): Decoded {
  return {
    files: backup.files.map(({ blobBase64, blobType, ...file }) => ({
      ...file,
      blob: new Blob([decodeBase64(blobBase64)], { type: blobType }),
    })),
    chunks: backup.chunks.map(({ embeddingBase64, ...chunk }) => ({
      ...chunk,
      embedding: embeddingBase64 === null ? null : decodeBase64(embeddingBase64).buffer,
    })),
  };
}

/** A message whose parent chain leads back to it would make its chat unreadable. */
export function describeCycle(cycle: readonly string[]): StorageError {
  return invalidBackup(
    `the parent links of messages ${cycle.map((id) => `"${id}"`).join(' → ')} form a cycle.`,
  );
}

type Decision = 'insert' | 'replace' | 'keep';

function decide(
  existing: { updatedAt: number } | undefined,
  incoming: { updatedAt: number },
): Decision {
  if (existing === undefined) return 'insert';
  return incoming.updatedAt > existing.updatedAt ? 'replace' : 'keep';
}

export async function importBackup(db: CarrelDb, text: string): Promise<BackupImportReport> {
  const backup = parseBackup(text);
  const decoded = decodeBinaries(backup);
  const report: BackupImportReport = { inserted: 0, replaced: 0, kept: 0, providersWithoutKey: [] };
  const count = (decision: Decision) => {
    report[decision === 'insert' ? 'inserted' : decision === 'replace' ? 'replaced' : 'kept'] += 1;
  };

  await guardStorage(db, () =>
    db.transaction('rw', db.tables, async () => {
      const cycle = await findImportedParentCycle(db, backup.messages);
      if (cycle !== undefined) throw describeCycle(cycle);

      /** Sessions whose messages changed here must invalidate every cache of their chain. */
      const touchedSessions = new Set<string>();

      const existingMessages = await db.messages.bulkGet(backup.messages.map((m) => m.id));
      const messageRows = backup.messages.flatMap((message, index) => {
        const decision = decide(existingMessages[index], message);
        count(decision);
        if (decision === 'keep') return [];
        touchedSessions.add(message.sessionId);
        return [toMessageRow(message)];
      });
      await db.messages.bulkPut(await placeImportedRows(db, messageRows));

      const existingSessions = await db.sessions.bulkGet(backup.sessions.map((s) => s.id));
      const sessionRows = backup.sessions.flatMap((session, index) => {
        const existing = existingSessions[index];
        const decision = decide(existing, session);
        count(decision);
        if (existing === undefined) return [session];
        // A replaced or touched session gets a version above both sides', so no cache keyed on
        // the old version can serve the imported chain as if it were the previous one.
        const nextVersion = Math.max(existing.version, session.version) + 1;
        if (decision === 'replace') return [{ ...session, version: nextVersion }];
        if (touchedSessions.has(session.id)) return [{ ...existing, version: nextVersion }];
        return [];
      });
      await db.sessions.bulkPut(sessionRows);
      const untouchedSessionIds = [...touchedSessions].filter(
        (id) => !backup.sessions.some((s) => s.id === id),
      );
      for (const id of untouchedSessionIds) {
        await db.sessions
          .where('id')
          .equals(id)
          .modify((session) => {
            session.version += 1;
          });
      }

      const pickNewer = <T extends { updatedAt: number }>(
        rows: readonly T[],
        existing: readonly (T | undefined)[],
      ) =>
        rows.filter((row, index) => {
          const decision = decide(existing[index], row);
          count(decision);
          return decision !== 'keep';
        });
      await db.projects.bulkPut(
        pickNewer(backup.projects, await db.projects.bulkGet(backup.projects.map((p) => p.id))),
      );
      await db.agents.bulkPut(
        pickNewer(backup.agents, await db.agents.bulkGet(backup.agents.map((a) => a.id))),
      );

      const existingProviders = await db.providers.bulkGet(backup.providers.map((p) => p.id));
      const providerRows = backup.providers.flatMap((provider, index) => {
        const existing = existingProviders[index];
        const decision = decide(existing, provider);
        count(decision);
        if (decision === 'keep') return [];
        // A backup without keys keeps this device's key only where it was entered for.
        const merged = mergeImportedProvider(existing, provider, backup.hasApiKeys);
        if (merged.isKeyDropped) report.providersWithoutKey.push(provider.name);
        return [merged.provider];
      });
      await db.providers.bulkPut(providerRows);

      const existingFiles = await db.files.bulkGet(decoded.files.map((f) => f.id));
      const filesToWrite = new Set<string>();
      const fileRows = decoded.files.filter((file, index) => {
        const decision = decide(existingFiles[index], file);
        count(decision);
        if (decision === 'keep') return false;
        filesToWrite.add(file.id);
        return true;
      });
      // A replaced file's chunks are replaced with it: stale chunks would cite the old text.
      await db.chunks
        .where('fileId')
        .anyOf([...filesToWrite])
        .delete();
      await db.files.bulkPut(fileRows);
      const backupFileIds = new Set(decoded.files.map((file) => file.id));
      const existingChunks = await db.chunks.bulkGet(decoded.chunks.map((c) => c.id));
      const chunkRows = decoded.chunks.filter((chunk, index) => {
        const isWanted =
          filesToWrite.has(chunk.fileId) ||
          (!backupFileIds.has(chunk.fileId) && existingChunks[index] === undefined);
        count(isWanted ? 'insert' : 'keep');
        return isWanted;
      });
      await db.chunks.bulkPut(chunkRows);

      // A setting this version does not know has no schema to pass, so it is left out.
      const settings = backup.settings.filter((setting) => isSettingKey(setting.key));
      await db.settings.bulkPut(
        pickNewer(settings, await db.settings.bulkGet(settings.map((s) => s.key))),
      );

      // Usage records never change once written: same id, same record.
      const existingUsage = await db.usage.bulkGet(backup.usage.map((u) => u.id));
      const usageRows = backup.usage.filter((_record, index) => {
        const isNew = existingUsage[index] === undefined;
        count(isNew ? 'insert' : 'keep');
        return isNew;
      });
      await db.usage.bulkPut(usageRows);
    }),
  );
  return report;
}
