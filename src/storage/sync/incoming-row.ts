/** Rows that arrived from the server, checked and given back this device's own fields. */
import type { Result } from '../../util/result';
import {
  agentSchema,
  chatMessageSimpleSchema,
  chatSummarySchema,
  projectSchema,
  promptSchema,
  providerConfigSchema,
  sessionSchema,
} from '../../core/model';
import { backupSettingSchema } from '../backup/backup-format';
import { chunkMetadataSchema } from '../chunk.store';
import { fileMetadataSchema, fileTextSchema } from '../file.store';
import type { UnplacedMessageRow } from '../message-lines';
import { toMessageRow } from '../message-rows';
import { describeIssues } from '../parse-row';
import { usageRecordSchema } from '../usage.store';
import { SECRET_FIELDS, type SyncedTable } from './synced-tables';

const ROW_SCHEMAS = {
  projects: projectSchema,
  agents: agentSchema,
  providers: providerConfigSchema,
  settings: backupSettingSchema,
  prompts: promptSchema,
  files: fileMetadataSchema,
  fileTexts: fileTextSchema,
  chunks: chunkMetadataSchema.omit({ embeddingModel: true }),
  messages: chatMessageSimpleSchema,
  summaries: chatSummarySchema,
  usage: usageRecordSchema,
  sessions: sessionSchema,
} as const;

/**
 * The row to store for a body that arrived, checked with its table's schema, with this device's
 * own fields put back (`existing` is the row stored now, if any). Messages come back unplaced.
 */
export function toIncomingRow(
  table: SyncedTable,
  body: Record<string, unknown>,
  existing: Record<string, unknown> | undefined,
): Result<Record<string, unknown> | UnplacedMessageRow, string> {
  let candidate: Record<string, unknown> = { ...body };
  if (table === 'sessions') {
    const version = typeof existing?.version === 'number' ? existing.version : 0;
    candidate.version = version + 1;
  } else if (table === 'messages') {
    candidate.parentId = body.parentId === '' ? null : body.parentId;
  } else if (table === 'providers') {
    for (const field of SECRET_FIELDS.providers ?? []) {
      if (!(field in body) && existing?.[field] !== undefined) candidate[field] = existing[field];
    }
    if (candidate.apiKey === undefined) candidate.apiKey = '';
    if (candidate.headers === undefined) candidate.headers = {};
  }
  const parsed = ROW_SCHEMAS[table].safeParse(candidate);
  if (!parsed.success) {
    return {
      ok: false,
      error: `A synced ${table} record is invalid: ${describeIssues(parsed.error.issues, candidate)}`,
    };
  }
  if (table === 'messages') {
    return { ok: true, value: toMessageRow(chatMessageSimpleSchema.parse(parsed.data)) };
  }
  candidate = { ...(parsed.data as Record<string, unknown>) };
  if (table === 'chunks') {
    // This device's vector stays while the text is the same; otherwise it is computed again.
    const kept =
      existing !== undefined &&
      existing.text === candidate.text &&
      existing.embedding instanceof ArrayBuffer
        ? existing
        : undefined;
    candidate.embedding = kept?.embedding ?? null;
    candidate.embeddingModel = kept?.embeddingModel ?? null;
  }
  if (table === 'files') {
    // The bytes stay while they are the same content; otherwise they wait on the server.
    const hasSameBytes =
      existing?.blob instanceof Blob &&
      existing.isBlobRemote !== true &&
      existing.hash === candidate.hash;
    if (hasSameBytes) {
      candidate.blob = existing.blob;
    } else {
      candidate.blob = new Blob([]);
      candidate.isBlobRemote = true;
    }
  }
  return { ok: true, value: candidate };
}
