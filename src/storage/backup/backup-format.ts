/**
 * Carrel's own backup file, versioned so later Carrels can read older files.
 *
 * Version 2 (written now) is JSON Lines, so a backup of any size is written and read one
 * record at a time: a header line, one line per row (`{"table":"messages","row":{…}}`), tables
 * in `BACKUP_TABLES` order (messages of a session together, parents first), and an end line
 * with the row count, so a file cut short is refused rather than half imported. Files written
 * before summaries were backed up simply have no summary lines. Version 1
 * (written before) is one JSON document with every table as an array; it is still imported.
 * Blobs are base64 of their bytes; embeddings are base64 of their Float32Array bytes.
 */
import { z } from 'zod';
import {
  agentSchema,
  chatMessageSimpleSchema,
  chatSummarySchema,
  projectIdSchema,
  projectSchema,
  promptSchema,
  providerConfigSchema,
  sessionIdSchema,
  sessionSchema,
} from '../../core/model';
import { checkSettingValue, isSettingKey } from '../../core/model/settings';
import { chunkMetadataSchema } from '../chunk.store';
import { fileMetadataSchema } from '../file.store';
import { usageRecordSchema } from '../usage.store';
import { BASE64_PATTERN } from './base64';

export const BACKUP_FORMAT = 'carrel-backup';
export const BACKUP_VERSION = 2;
/** The single-document format of earlier Carrels. */
export const LEGACY_BACKUP_VERSION = 1;

const base64Schema = z.string().regex(BASE64_PATTERN, 'Expected base64');

export const backupScopeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('all') }),
  z.object({ kind: z.literal('project'), projectId: projectIdSchema }),
  z.object({ kind: z.literal('session'), sessionId: sessionIdSchema }),
]);

export const backupFileSchema = fileMetadataSchema.extend({
  blobType: z.string(),
  blobBase64: base64Schema,
  /**
   * A synced file whose original was never fetched to the exporting device: the backup holds its
   * text, not its bytes (they are on the sync server), and says so rather than pass off an empty
   * file as the original.
   */
  isBlobRemote: z.boolean().optional(),
});

export const backupChunkSchema = chunkMetadataSchema.extend({
  embeddingBase64: base64Schema
    .refine(
      (text) => decodedLength(text) % Float32Array.BYTES_PER_ELEMENT === 0,
      'Embedding bytes are not whole floats',
    )
    .nullable(),
});

/**
 * A registered setting's value must pass the schema the settings store checks a form's value
 * with; a key this version does not register is read but not imported.
 */
export const backupSettingSchema = z
  .object({
    key: z.string().min(1),
    value: z.unknown(),
    updatedAt: z.number(),
  })
  .superRefine((setting, context) => {
    if (!isSettingKey(setting.key)) return;
    const checked = checkSettingValue(setting.key, setting.value);
    if (checked.success) return;
    for (const issue of checked.error.issues) {
      context.addIssue({
        code: 'custom',
        path: ['value', ...issue.path],
        message: `${issue.message} (setting "${setting.key}")`,
      });
    }
  });

/** Each table's row schema, in the order a backup lists the tables. */
export const BACKUP_ROW_SCHEMAS = {
  sessions: sessionSchema,
  messages: chatMessageSimpleSchema,
  projects: projectSchema,
  files: backupFileSchema,
  chunks: backupChunkSchema,
  agents: agentSchema,
  providers: providerConfigSchema,
  settings: backupSettingSchema,
  prompts: promptSchema,
  usage: usageRecordSchema,
  /** Compaction summaries: the schema the summary store writes with. */
  summaries: chatSummarySchema,
};
export type BackupTable = keyof typeof BACKUP_ROW_SCHEMAS;
export const BACKUP_TABLES = Object.keys(BACKUP_ROW_SCHEMAS) as BackupTable[];
export type BackupRow<Table extends BackupTable> = z.infer<(typeof BACKUP_ROW_SCHEMAS)[Table]>;
/** One row with its table, as the import reads it from either version. */
export type BackupRecord = {
  [Table in BackupTable]: { table: Table; row: BackupRow<Table> };
}[BackupTable];

const headerFields = {
  format: z.literal(BACKUP_FORMAT),
  exportedAt: z.number(),
  scope: backupScopeSchema,
  /** False when API keys were blanked; importing then keeps the keys already on this device. */
  hasApiKeys: z.boolean(),
};

/** The first line of a version 2 file. */
export const backupHeaderSchema = z.object({
  ...headerFields,
  version: z.literal(BACKUP_VERSION),
});
export type BackupHeader = z.infer<typeof backupHeaderSchema>;

/** A row line of a version 2 file, before its row is checked against its table's schema. */
export const backupLineSchema = z.object({
  table: z.enum(BACKUP_TABLES as [BackupTable, ...BackupTable[]]),
  row: z.unknown(),
});

/** The last line of a version 2 file. */
export const backupEndSchema = z.object({ end: z.literal(true), rows: z.number().int().min(0) });

/** A whole version 1 file. */
export const legacyBackupSchema = z.object({
  ...headerFields,
  version: z.literal(LEGACY_BACKUP_VERSION),
  sessions: z.array(sessionSchema),
  messages: z.array(chatMessageSimpleSchema),
  projects: z.array(projectSchema),
  files: z.array(backupFileSchema),
  chunks: z.array(backupChunkSchema),
  agents: z.array(agentSchema),
  providers: z.array(providerConfigSchema),
  settings: z.array(backupSettingSchema),
  usage: z.array(usageRecordSchema),
  /** Version 1 files were written before the prompt library. */
  prompts: z.array(promptSchema).default([]),
  /** Version 1 files never had summaries. */
  summaries: z.array(chatSummarySchema).default([]),
});
export type LegacyBackup = z.infer<typeof legacyBackupSchema>;
export type BackupFile = z.infer<typeof backupFileSchema>;
export type BackupChunk = z.infer<typeof backupChunkSchema>;

function decodedLength(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return (base64.length / 4) * 3 - padding;
}
