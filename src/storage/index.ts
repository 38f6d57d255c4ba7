/**
 * Storage's public face: open the database, build the stores over it. Everything here works in
 * the window and in workers; `requestPersistence` is the one window-only call.
 */
import type {
  AgentStore,
  Backup,
  ChunkStore,
  Clock,
  FileStore,
  Ids,
  ProjectStore,
  PromptStore,
  ProviderStore,
  SessionStore,
  SearchBlockStore,
  SettingsStore,
  SummaryStore,
  UsageStore,
} from '../core/ports';
import { createAgentStore } from './agent.store';
import { createChunkStore } from './chunk.store';
import type { CarrelDb } from './db';
import { createFileStore } from './file.store';
import { createMessageStore, type DexieMessageStore } from './message.store';
import { createProjectStore } from './project.store';
import { createPromptStore } from './prompt.store';
import { createSearchBlockStore } from './search-block.store';
import { createProviderStore } from './provider.store';
import { createSessionStore } from './session.store';
import { createSettingsStore } from './settings.store';
import { createSummaryStore } from './summary.store';
import { createUsageStore } from './usage.store';

/** The stores the window uses; project chunks, their search blocks and summaries are the workers'. */
export interface AppStores {
  sessions: SessionStore;
  messages: DexieMessageStore;
  projects: ProjectStore;
  files: FileStore;
  agents: AgentStore;
  providers: ProviderStore;
  settings: SettingsStore;
  usage: UsageStore;
  prompts: PromptStore;
  backup: Backup;
}

export interface CarrelStores extends AppStores {
  chunks: ChunkStore;
  searchBlocks: SearchBlockStore;
  summaries: SummaryStore;
}

/** The window's stores: the startup script holds none of the workers' store code. */
export function createAppStores(db: CarrelDb, clock: Clock, ids: Ids): AppStores {
  return {
    sessions: createSessionStore(db, clock),
    messages: createMessageStore(db, clock),
    projects: createProjectStore(db, clock),
    files: createFileStore(db),
    agents: createAgentStore(db),
    providers: createProviderStore(db),
    settings: createSettingsStore(db, clock),
    usage: createUsageStore(db, clock, ids),
    prompts: createPromptStore(db),
    backup: createLazyBackup(db, clock),
  };
}

export function createStores(db: CarrelDb, clock: Clock, ids: Ids): CarrelStores {
  return {
    ...createAppStores(db, clock, ids),
    chunks: createChunkStore(db),
    searchBlocks: createSearchBlockStore(db),
    summaries: createSummaryStore(db),
  };
}

/**
 * The backup service, loaded on its first export or import: its row checks, encoders and
 * journal writers stay out of the startup script (and out of workers that never back up).
 */
function createLazyBackup(db: CarrelDb, clock: Clock): Backup {
  let service: Promise<Backup> | undefined;
  const load = (): Promise<Backup> =>
    (service ??= import('./backup/backup').then(
      ({ createBackupService }) => createBackupService(db, clock),
      (error: unknown) => {
        // A failed load (the app updated, the network gone) is tried again next time.
        service = undefined;
        throw error;
      },
    ));
  return {
    exportBackup: async (scope, options) => (await load()).exportBackup(scope, options),
    importBackup: async (file, options) => (await load()).importBackup(file, options),
  };
}

export { openCarrelDb, CarrelDb, CURRENT_SCHEMA_VERSION, type OpenCarrelDbOptions } from './db';
export { StorageError, isStorageError, type StorageErrorCode } from './errors';
export { observe } from './observe';
export { isSyncConfigured } from './sync/sync-state';
export { recoverUnfinishedImportsOnStart, watchImportUnderway } from './backup/import-status';
export {
  estimateStorage,
  requestPersistence,
  NEARLY_FULL_RATIO,
  type EstimatableStorage,
  type PersistableStorage,
  type StorageEstimateReport,
} from './persistence';
export { createSessionCache, type SessionCache, type SessionCacheStats } from './session-cache';
// Not re-exported: search-index.ts (MiniSearch), backup/import-chatgpt.ts, backup/shared-chat.ts
// and backup/export-markdown.ts are imported on first use (main.ts), so they stay out of the
// startup script; a re-export here would pull them into it.
