import {
  agentSchema,
  collectSecrets,
  redactSecretsDeep,
  type ProviderConfig,
  projectSchema,
  providerConfigSchema,
  sessionSchema,
  type ChatMessageSimple,
} from '../../core/model';
import type { BackupScope, Clock, StoredFile, TextChunk } from '../../core/ports';
import { fromChunkRow } from '../chunk.store';
import type { CarrelDb, FileRow, MessageRow, SessionRow, UsageRow } from '../db';
import { StorageError } from '../errors';
import { fromFileRow } from '../file.store';
import { guardStorage } from '../guard';
import { fromMessageRow } from '../message-rows';
import { parseStored } from '../parse-row';
import { usageRecordSchema } from '../usage.store';
import {
  BACKUP_FORMAT,
  BACKUP_VERSION,
  type BackupChunk,
  type BackupFile,
  type CarrelBackup,
} from './backup-format';
import { encodeBase64 } from './base64';

export interface ExportOptions {
  /** API keys are blanked unless the user explicitly asks to include them. */
  includeApiKeys?: boolean;
}

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

async function encodeFile(file: StoredFile): Promise<BackupFile> {
  const { blob, ...metadata } = file;
  return {
    ...metadata,
    blobType: blob.type,
    blobBase64: encodeBase64(new Uint8Array(await blob.arrayBuffer())),
  };
}

function encodeChunk(chunk: TextChunk): BackupChunk {
  const { embedding, ...metadata } = chunk;
  return {
    ...metadata,
    embeddingBase64:
      embedding === null
        ? null
        : encodeBase64(
            new Uint8Array(embedding.buffer, embedding.byteOffset, embedding.byteLength),
          ),
  };
}

interface SelectedRows {
  sessions: SessionRow[];
  messages: MessageRow[];
  files: FileRow[];
  usage: UsageRow[];
  isEverything: boolean;
}

/** Reads what the scope covers inside one read transaction, so the backup is a consistent snapshot. */
async function selectRows(db: CarrelDb, scope: BackupScope): Promise<SelectedRows> {
  switch (scope.kind) {
    case 'all':
      return {
        sessions: await db.sessions.toArray(),
        messages: await db.messages.toArray(),
        files: await db.files.toArray(),
        usage: await db.usage.toArray(),
        isEverything: true,
      };
    case 'project': {
      if ((await db.projects.get(scope.projectId)) === undefined) {
        throw new StorageError('not_found', `Project ${scope.projectId} no longer exists.`);
      }
      const sessions = await db.sessions.where('projectId').equals(scope.projectId).toArray();
      const sessionIds = sessions.map((session) => session.id);
      return {
        sessions,
        messages: await db.messages.where('sessionId').anyOf(sessionIds).toArray(),
        files: await db.files.where('projectId').equals(scope.projectId).toArray(),
        usage: await db.usage.where('sessionId').anyOf(sessionIds).toArray(),
        isEverything: false,
      };
    }
    case 'session': {
      const session = await db.sessions.get(scope.sessionId);
      if (session === undefined)
        throw new StorageError('not_found', `Session ${scope.sessionId} no longer exists.`);
      const messages = await db.messages.where('sessionId').equals(scope.sessionId).toArray();
      // Attachments keep their text inline; their files come along so the blobs are not lost.
      const fileIds = [
        ...new Set(
          messages.flatMap((message) => (message.attachments ?? []).map((a) => a.fileId as string)),
        ),
      ];
      const files = (await db.files.bulkGet(fileIds)).filter(
        (file): file is FileRow => file !== undefined,
      );
      return {
        sessions: [session],
        messages,
        files,
        usage: await db.usage.where('sessionId').equals(scope.sessionId).toArray(),
        isEverything: false,
      };
    }
  }
}

export async function createBackup(
  db: CarrelDb,
  scope: BackupScope,
  clock: Clock,
  options: ExportOptions = {},
): Promise<CarrelBackup> {
  const includeApiKeys = options.includeApiKeys ?? false;
  return guardStorage(db, async () => {
    const snapshot = await db.transaction('r', db.tables, async () => {
      const selected = await selectRows(db, scope);
      const fileIds = selected.files.map((file) => file.id);
      const projectIds =
        scope.kind === 'project'
          ? [scope.projectId]
          : selected.isEverything
            ? await db.projects.toCollection().primaryKeys()
            : [];
      return {
        ...selected,
        projects: await db.projects.bulkGet(projectIds),
        chunks: selected.isEverything
          ? await db.chunks.toArray()
          : await db.chunks.where('fileId').anyOf(fileIds).toArray(),
        agents: selected.isEverything ? await db.agents.toArray() : [],
        providers: selected.isEverything ? await db.providers.toArray() : [],
        settings: selected.isEverything ? await db.settings.toArray() : [],
        // Every key on this device, whatever the scope: none may appear in the text exported.
        secrets: includeApiKeys
          ? []
          : collectSecrets((await db.providers.toArray()).map((row) => row.apiKey)),
      };
    });
    const redact = <T>(value: T): T => redactSecretsDeep(value, snapshot.secrets);
    const messages: ChatMessageSimple[] = snapshot.messages.map(fromMessageRow).sort(byId);
    const files = snapshot.files.map(fromFileRow).sort(byId);
    return {
      format: BACKUP_FORMAT,
      version: BACKUP_VERSION,
      exportedAt: clock.now(),
      scope,
      hasApiKeys: includeApiKeys,
      sessions: snapshot.sessions
        .map((row) => redact(parseStored(sessionSchema, row, `Stored session ${row.id}`)))
        .sort(byId),
      // An error a provider echoed (key included) is kept in its message: not in this file.
      messages: redact(messages),
      projects: snapshot.projects
        .filter((row) => row !== undefined)
        .map((row) => parseStored(projectSchema, row, `Stored project ${row.id}`))
        .sort(byId),
      files: await Promise.all(files.map(encodeFile)),
      chunks: snapshot.chunks.map(fromChunkRow).sort(byId).map(encodeChunk),
      agents: snapshot.agents
        .map((row) => redact(parseStored(agentSchema, row, `Stored agent ${row.id}`)))
        .sort(byId),
      providers: snapshot.providers
        .map((row) => parseStored(providerConfigSchema, row, `Stored provider ${row.id}`))
        .map((provider) => (includeApiKeys ? provider : withoutKey(provider)))
        .sort(byId),
      settings: redact(snapshot.settings)
        .slice()
        .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
      usage: snapshot.usage
        .map((row) => parseStored(usageRecordSchema, row, 'Stored usage record'))
        .sort(byId),
    };
  });
}

function withoutKey(provider: ProviderConfig): ProviderConfig {
  const { keyOrigin: _origin, ...rest } = provider;
  return { ...rest, apiKey: '' };
}

/** The backup file's text. */
export function serializeBackup(backup: CarrelBackup): string {
  return JSON.stringify(backup);
}
