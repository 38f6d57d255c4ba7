/**
 * Reading a backup file of either version into checked rows, one at a time. A version 2 file
 * (JSON Lines) is streamed line by line; a version 1 file is one JSON document, read whole as
 * it always was (such files were built in memory, so they are small enough to be).
 */
import type { BackupWorkOptions } from '../../core/ports';
import { StorageError } from '../errors';
import { describeIssues } from '../parse-row';
import {
  BACKUP_FORMAT,
  BACKUP_ROW_SCHEMAS,
  BACKUP_TABLES,
  BACKUP_VERSION,
  backupEndSchema,
  backupHeaderSchema,
  backupLineSchema,
  LEGACY_BACKUP_VERSION,
  legacyBackupSchema,
  type BackupRecord,
  type BackupTable,
} from './backup-format';
import { createProgressReporter } from './progress';

/** Longest ordinary string a backup may hold (a pasted book fits; a runaway one does not). */
export const MAX_BACKUP_STRING_CHARS = 10_000_000;
/** Longest base64 blob: about 150 MB of file bytes. */
export const MAX_BACKUP_BLOB_BASE64_CHARS = 200_000_000;
/** Keys that could reach an object's prototype if some later code merged the value naively. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** How many bad rows are named before the import gives up reading. */
const MAX_PROBLEMS = 3;
/** A version 2 header is short; a first line longer than this is a version 1 document. */
const HEADER_PEEK_BYTES = 64 * 1024;

export function invalidBackup(message: string): StorageError {
  return new StorageError(
    'invalid_data',
    `This is not a Carrel backup Carrel can import: ${message}`,
  );
}

/** A forbidden key or an oversized string anywhere in a value, described by where it is. */
function findTreeProblem(root: unknown, rootPath: readonly string[]): string | undefined {
  const stack: { value: unknown; path: string[] }[] = [{ value: root, path: [...rootPath] }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, path } = item;
    if (typeof value === 'string') {
      const limit =
        path[path.length - 1] === 'blobBase64'
          ? MAX_BACKUP_BLOB_BASE64_CHARS
          : MAX_BACKUP_STRING_CHARS;
      if (value.length > limit)
        return `the text at "${path.join('.')}" is too long (${value.length} characters).`;
    } else if (Array.isArray(value)) {
      value.forEach((child, index) => stack.push({ value: child, path: [...path, String(index)] }));
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        if (FORBIDDEN_KEYS.has(key))
          return `the key "${key}" at "${[...path, key].join('.')}" is not allowed.`;
        stack.push({ value: child, path: [...path, key] });
      }
    }
  }
  return undefined;
}

/** Bytes read from the file at a time: few reads, and a bounded share of memory. */
const READ_CHUNK_BYTES = 4 * 1024 * 1024;

/** The lines of a file, read a slice at a time: memory holds the line being read and one slice. */
async function* readLines(
  file: Blob,
  onBytes: (bytesRead: number) => void,
): AsyncGenerator<string> {
  // Fatal: a byte sequence that is not UTF-8 means the file is damaged, not text to guess at.
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let pieces: string[] = [];
  for (let offset = 0; offset < file.size; offset += READ_CHUNK_BYTES) {
    const bytes = new Uint8Array(await file.slice(offset, offset + READ_CHUNK_BYTES).arrayBuffer());
    const text = decoder.decode(bytes, { stream: true });
    // Progress moves line by line: the share of this slice's text read so far, in bytes.
    const toBytes = (chars: number) => offset + Math.round((bytes.length * chars) / text.length);
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      pieces.push(text.slice(start, end));
      onBytes(toBytes(end + 1));
      yield pieces.join('');
      pieces = [];
      start = end + 1;
    }
    if (start < text.length) pieces.push(text.slice(start));
    onBytes(offset + bytes.length);
  }
  pieces.push(decoder.decode());
  const last = pieces.join('');
  if (last !== '') yield last;
}

/** What the rows are imported with, from the header of either version. */
export interface ReadBackup {
  header: { hasApiKeys: boolean };
  /** Synchronous for a version 1 file, which is already in memory. */
  records: AsyncGenerator<BackupRecord, void, undefined> | Generator<BackupRecord, void, undefined>;
}

type FirstLine =
  | { kind: 'header'; value: unknown }
  | { kind: 'legacy' }
  | { kind: 'unsupported'; version: unknown };

/** Looks at the first line only: a version 2 header, a newer version, or anything else. */
async function classifyFirstLine(file: Blob): Promise<FirstLine> {
  const head = await file.slice(0, HEADER_PEEK_BYTES).text();
  const end = head.indexOf('\n');
  if (end === -1) return { kind: 'legacy' };
  let value: unknown;
  try {
    value = JSON.parse(head.slice(0, end));
  } catch {
    return { kind: 'legacy' };
  }
  if (typeof value !== 'object' || value === null) return { kind: 'legacy' };
  const { format, version } = value as { format?: unknown; version?: unknown };
  if (format !== BACKUP_FORMAT || version === LEGACY_BACKUP_VERSION) return { kind: 'legacy' };
  return version === BACKUP_VERSION ? { kind: 'header', value } : { kind: 'unsupported', version };
}

function unsupportedVersion(version: unknown): StorageError {
  return invalidBackup(
    `backup version ${String(version)} is not supported (this Carrel reads versions ${LEGACY_BACKUP_VERSION} and ${BACKUP_VERSION}).`,
  );
}

/** Opens a backup: its header now, its rows (checked) as they are read. */
export async function readBackupRecords(
  file: Blob,
  options: BackupWorkOptions,
): Promise<ReadBackup> {
  const progress = createProgressReporter(file.size, options.onProgress);
  const first = await classifyFirstLine(file);
  if (first.kind === 'unsupported') throw unsupportedVersion(first.version);
  if (first.kind === 'legacy') {
    const text = await file.text();
    progress.finish();
    return readLegacy(text);
  }
  const header = backupHeaderSchema.safeParse(first.value);
  if (!header.success)
    throw invalidBackup(`the first line ${describeIssues(header.error.issues, first.value)}`);
  const lines = readLines(file, (bytes) => progress.moveTo(bytes));
  return { header: header.data, records: readRows(lines, () => progress.finish()) };
}

/** The rows of a version 2 file after its header; a bad row stops the import, naming it. */
async function* readRows(
  lines: AsyncGenerator<string>,
  onEnd: () => void,
): AsyncGenerator<BackupRecord, void, undefined> {
  const counts = Object.fromEntries(BACKUP_TABLES.map((table) => [table, 0])) as Record<
    BackupTable,
    number
  >;
  const problems: string[] = [];
  let lineNumber = 1;
  let rows = 0;
  let end: { rows: number } | undefined;
  await lines.next(); // the header, read already
  for await (const line of lines) {
    lineNumber += 1;
    if (line.trim() === '') continue;
    if (end !== undefined) {
      problems.push(`line ${lineNumber} comes after the end line.`);
      break;
    }
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      problems.push(
        `line ${lineNumber} is not complete JSON (${error instanceof Error ? error.message : String(error)}).`,
      );
      if (problems.length >= MAX_PROBLEMS) break;
      continue;
    }
    const ending = backupEndSchema.safeParse(json);
    if (ending.success) {
      end = ending.data;
      continue;
    }
    const problem = checkRow(json, counts, lineNumber);
    rows += 1;
    if (typeof problem === 'string') {
      problems.push(problem);
      if (problems.length >= MAX_PROBLEMS) break;
    } else if (problems.length === 0) {
      // After a problem the rest is only read for more problems; nothing more is written.
      yield problem;
    }
  }
  if (problems.length > 0)
    throw invalidBackup(`${problems.map((problem) => problem.replace(/\.$/, '')).join('; ')}.`);
  if (end === undefined)
    throw invalidBackup(
      'the file ends before its end line: it was cut short. Nothing was imported.',
    );
  if (end.rows !== rows)
    throw invalidBackup(`the file has ${rows} rows but its end line says ${end.rows}.`);
  onEnd();
}

/** One row line: its table, forbidden keys and long strings, then the table's schema. */
function checkRow(
  json: unknown,
  counts: Record<BackupTable, number>,
  lineNumber: number,
): BackupRecord | string {
  const line = backupLineSchema.safeParse(json);
  if (!line.success) return `line ${lineNumber} ${describeIssues(line.error.issues, json)}`;
  const { table, row } = line.data;
  const index = counts[table];
  counts[table] = index + 1;
  const treeProblem = findTreeProblem(row, [table, String(index)]);
  if (treeProblem !== undefined) return treeProblem;
  const parsed = BACKUP_ROW_SCHEMAS[table].safeParse(row);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({
      ...issue,
      path: [table, index, ...issue.path],
    }));
    return describeIssues(issues, { [table]: { [index]: row } });
  }
  return { table, row: parsed.data } as BackupRecord;
}

/** A version 1 document, checked whole, then handed out row by row in table order. */
function readLegacy(text: string): ReadBackup {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw invalidBackup(
      `the file is not complete JSON (${error instanceof Error ? error.message : String(error)}).`,
    );
  }
  const treeProblem = findTreeProblem(json, []);
  if (treeProblem !== undefined) throw invalidBackup(treeProblem);
  if (typeof json === 'object' && json !== null) {
    const { format, version } = json as { format?: unknown; version?: unknown };
    if (format === BACKUP_FORMAT && version === BACKUP_VERSION)
      throw invalidBackup(
        `a version ${BACKUP_VERSION} backup has one record per line, but this file is one JSON document.`,
      );
    if (format === BACKUP_FORMAT && version !== LEGACY_BACKUP_VERSION)
      throw unsupportedVersion(version);
  }
  const parsed = legacyBackupSchema.safeParse(json);
  if (!parsed.success) throw invalidBackup(describeIssues(parsed.error.issues, json));
  const backup = parsed.data;
  // A session's messages together, as version 2 lists them, so each is placed in one batch.
  backup.messages.sort((a, b) =>
    a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0,
  );
  function* records(): Generator<BackupRecord, void, undefined> {
    for (const table of BACKUP_TABLES) {
      for (const row of backup[table]) yield { table, row } as BackupRecord;
    }
  }
  return { header: { hasApiKeys: backup.hasApiKeys }, records: records() };
}
