import type { AgentsState } from '../settings/agents.svelte';
import type { AttachmentsState } from '../chat/attachments.svelte';
import type { BuiltinModelState } from '../settings/builtin-model.svelte';
import type { FileViewerState } from '../projects/file-viewer.svelte';
import type { ProjectsState } from '../projects/projects.svelte';
import type { NewChatProject } from '../projects/new-chat-project.svelte';
import type { EmbeddingSettingsState } from '../settings/embedding-settings.svelte';
import type { ChatSessionState } from '../chat/chat-session.svelte';
import type { ComposerState } from '../chat/composer.svelte';
import type { NoticesState } from './notices.svelte';
import type { PromptsState } from '../settings/prompts.svelte';
import type { ProvidersState } from '../settings/providers.svelte';
import type { RouterState } from './router.svelte';
import type { SessionsState } from '../chat/sessions.svelte';
import type { SettingsState } from '../settings/settings.svelte';
import type { StorageSettingsState } from '../settings/settings-storage.svelte';
import type { UsageState } from '../usage/usage.svelte';
import type { SyncSettingsState } from '../settings/sync.svelte';

/** Everything the component tree needs, built once by the composition root (main.ts). */
export interface AppContext {
  router: RouterState;
  chat: ChatSessionState;
  providers: ProvidersState;
  sessions: SessionsState;
  agents: AgentsState;
  /** The prompt library (its screen and the composer's `/`). */
  prompts: PromptsState;
  composer: ComposerState;
  /** The one error funnel and its toasts. */
  notices: NoticesState;
  /** System prompt, theme, web tools and MCP servers (the Settings screen). */
  settings: SettingsState;
  /** Persistence, usage, backups and delete-everything (the Settings screen). */
  storage: StorageSettingsState;
  /** The project a new chat starts in (the composer's chip, "New chat" in a project). */
  newChatProject: NewChatProject;
  /** The open project: settings, files, uploads, fit or search; state and code come on first use. */
  loadProjects: () => Promise<ProjectsState>;
  /** Files attached to the next message (the composer's attach slot). */
  attachments: AttachmentsState;
  /** The file viewer opened by citation chips and the files panel; its state and code come on first use. */
  loadFileViewer: () => Promise<FileViewerState>;
  /** Embedding model, source and downloads (the Settings screen). */
  loadEmbeddingSettings: () => Promise<EmbeddingSettingsState>;
  /** Tokens and spend (the Usage screen). */
  usage: UsageState;
  /** The built-in model: first-run download, how it runs; its state and code come on first use. */
  loadBuiltin: () => Promise<BuiltinModelState>;
  /**
   * Sync across devices (the Settings screen), fetched on first use; absent in compositions
   * without it.
   */
  loadSync?: () => Promise<SyncSettingsState>;
}
