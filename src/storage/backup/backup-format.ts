/**
 * Carrel's own backup file: one JSON document, versioned so later Carrels can read older files.
 * Blobs are base64 of their bytes; embeddings are base64 of their Float32Array bytes.
 */
import { z } from 'zod';
import {
  agentSchema,
  chatMessageSimpleSchema,
  checkSettingValue,
  isSettingKey,
  projectIdSchema,
  projectSchema,
  providerConfigSchema,
  sessionIdSchema,
  sessionSchema,
} from '../../core/model';
import { chunkMetadataSchema } from '../chunk.store';
import { fileMetadataSchema } from '../file.store';
import { usageRecordSchema } from '../usage.store';
import { BASE64_PATTERN } from './base64';

export const BACKUP_FORMAT = 'carrel-backup';
export const BACKUP_VERSION = 1;

const base64Schema = z.string().regex(BASE64_PATTERN, 'Expected base64');

export const backupScopeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('all') }),
  z.object({ kind: z.literal('project'), projectId: projectIdSchema }),
  z.object({ kind: z.literal('session'), sessionId: sessionIdSchema }),
]);

export const backupFileSchema = fileMetadataSchema.extend({
  blobType: z.string(),
  blobBase64: base64Schema,
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

export const carrelBackupSchema = z.object({
  format: z.literal(BACKUP_FORMAT),
  version: z.literal(BACKUP_VERSION),
  exportedAt: z.number(),
  scope: backupScopeSchema,
  /** False when API keys were blanked; importing then keeps the keys already on this device. */
  hasApiKeys: z.boolean(),
  sessions: z.array(sessionSchema),
  messages: z.array(chatMessageSimpleSchema),
  projects: z.array(projectSchema),
  files: z.array(backupFileSchema),
  chunks: z.array(backupChunkSchema),
  agents: z.array(agentSchema),
  providers: z.array(providerConfigSchema),
  settings: z.array(backupSettingSchema),
  usage: z.array(usageRecordSchema),
});
export type CarrelBackup = z.infer<typeof carrelBackupSchema>;
export type BackupFile = z.infer<typeof backupFileSchema>;
export type BackupChunk = z.infer<typeof backupChunkSchema>;

function decodedLength(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return (base64.length / 4) * 3 - padding;
}
