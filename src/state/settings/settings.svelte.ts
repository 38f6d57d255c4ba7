import { DEFAULT_SYSTEM_PROMPT } from '../../core/context/system-prompt/registry';
import { modelRefSchema, type ModelRef } from '../../core/model';
import type { SettingsStore } from '../../core/ports';
import { err, ok, type Result } from '../../util/result';
import type { AgentClient } from '../../workers/agent/agent.client';
import type { McpServerConfig, WebToolSettings } from '../../workers/agent/agent.api';
import { parseTheme, THEME_SETTING_KEY, toThemeAttribute, type Theme } from '../shell/theme';
import type { McpServerDraft, WebToolsDraft } from './web-tools-form';
import { MCP_SERVERS_SETTING_KEY, readStoredMcpServers, WEB_TOOLS_SETTING_KEY } from './web-tools-stored';

/** The forms' checks load with the Settings screen that uses them, not at startup. */
const loadWebToolsForm = () => import('./web-tools-form');

/** The settings key the agent worker reads the edited system prompt from (SYSTEM_PROMPT_SETTING). */
export const SYSTEM_PROMPT_SETTING_KEY = 'systemPrompt';

export interface SettingsStateDeps {
  store: SettingsStore;
  agent: Pick<AgentClient, 'testWebSearch' | 'testMcpServer'>;
  /** Where the theme is applied: `document.documentElement` in the app. */
  root: HTMLElement;
  newId: () => string;
}

/**
 * The app-wide settings the Settings screen edits: system prompt, theme, web tools and MCP
 * servers. Everything is stored in IndexedDB through the settings store; the worker reads the
 * same keys at the start of every turn, so a change applies to the next message.
 */
/** Settings key of the model new chats start with. */
export const DEFAULT_MODEL_SETTING_KEY = 'defaultModel';
/** Settings key of the model that writes summaries of long chats. */
export const COMPACTION_MODEL_SETTING_KEY = 'compactionModel';

export class SettingsState {
  /** null: the default prompt. */
  systemPrompt = $state<string | null>(null);
  theme = $state<Theme>('system');
  /** As stored (unparsed): the form reads it defensively, the worker validates it. */
  webTools = $state<unknown>(null);
  mcpServers = $state<McpServerConfig[]>([]);
  /** The model a new chat starts with (unless its project or agent says otherwise). */
  defaultModel = $state<ModelRef | null>(null);
  /** The model that summarises long chats; null: the built-in model when there is one, else the chat's own. */
  compactionModel = $state<ModelRef | null>(null);
  isLoaded = $state(false);
  readonly defaultSystemPrompt = DEFAULT_SYSTEM_PROMPT;

  constructor(private readonly deps: SettingsStateDeps) {}

  async load(): Promise<void> {
    const { store } = this.deps;
    const [systemPrompt, theme, webTools, mcpServers, defaultModel, compactionModel] = await Promise.all([
      store.get<unknown>(SYSTEM_PROMPT_SETTING_KEY),
      store.get<unknown>(THEME_SETTING_KEY),
      store.get<unknown>(WEB_TOOLS_SETTING_KEY),
      store.get<unknown>(MCP_SERVERS_SETTING_KEY),
      store.get<unknown>(DEFAULT_MODEL_SETTING_KEY),
      store.get<unknown>(COMPACTION_MODEL_SETTING_KEY),
    ]);
    this.defaultModel = readModelRef(defaultModel);
    this.compactionModel = readModelRef(compactionModel);
    this.systemPrompt = typeof systemPrompt === 'string' ? systemPrompt : null;
    this.theme = parseTheme(theme);
    this.webTools = webTools ?? null;
    this.mcpServers = readStoredMcpServers(mcpServers);
    this.isLoaded = true;
    this.applyTheme();
  }

  /** The prompt as edited; the default text (or nothing) is stored as "use the default". */
  async saveSystemPrompt(text: string): Promise<void> {
    const isDefault = text.trim() === '' || text.trim() === DEFAULT_SYSTEM_PROMPT.trim();
    const value = isDefault ? null : text;
    await this.deps.store.set(SYSTEM_PROMPT_SETTING_KEY, value);
    this.systemPrompt = value;
  }

  /** null: a new chat takes the first model listed. */
  async setDefaultModel(model: ModelRef | null): Promise<void> {
    this.defaultModel = await this.storeModelRef(DEFAULT_MODEL_SETTING_KEY, model);
  }

  /** null: summaries are written by the built-in model when there is one, else by the chat's own. */
  async setCompactionModel(model: ModelRef | null): Promise<void> {
    this.compactionModel = await this.storeModelRef(COMPACTION_MODEL_SETTING_KEY, model);
  }

  private async storeModelRef(key: string, model: ModelRef | null): Promise<ModelRef | null> {
    const value = model ? { providerId: model.providerId, modelId: model.modelId } : null;
    await this.deps.store.set(key, value);
    return value;
  }

  /** An id for a new MCP server's form. */
  newId(): string {
    return this.deps.newId();
  }

  async resetSystemPrompt(): Promise<void> {
    await this.saveSystemPrompt('');
  }

  async setTheme(theme: Theme): Promise<void> {
    this.theme = theme;
    this.applyTheme();
    await this.deps.store.set(THEME_SETTING_KEY, theme);
  }

  applyTheme(): void {
    const attribute = toThemeAttribute(this.theme);
    if (attribute === null) delete this.deps.root.dataset['theme'];
    else this.deps.root.dataset['theme'] = attribute;
  }

  async saveWebTools(draft: WebToolsDraft): Promise<Result<WebToolSettings, string>> {
    const settings = (await loadWebToolsForm()).toWebToolSettings(draft);
    if (!settings.ok) return settings;
    await this.deps.store.set(WEB_TOOLS_SETTING_KEY, settings.value);
    this.webTools = settings.value;
    return settings;
  }

  /** One small search with the form's (unsaved) settings; the message says what happened. */
  async testWebSearch(draft: WebToolsDraft): Promise<Result<string, string>> {
    const config = (await loadWebToolsForm()).toSearchBackendConfig(draft);
    if (!config.ok) return config;
    if (config.value === null) return err('Choose a search service first.');
    const tested = await this.deps.agent.testWebSearch(config.value);
    if (!tested.ok) return err(tested.error.message);
    const count = tested.value.resultCount;
    return ok(
      count > 0
        ? `The search works: it returned ${count} result${count === 1 ? '' : 's'}.`
        : 'The service answered, but with no results for a test query.',
    );
  }

  /** Adds the server, or replaces the one with the same id. */
  async saveMcpServer(draft: McpServerDraft): Promise<Result<McpServerConfig, string>> {
    const server = (await loadWebToolsForm()).toMcpServerConfig(draft);
    if (!server.ok) return server;
    const isTaken = this.mcpServers.some(
      (other) => other.id !== server.value.id && other.name.toLowerCase() === server.value.name.toLowerCase(),
    );
    if (isTaken) return err(`Another server is already named "${server.value.name}".`);
    const exists = this.mcpServers.some((other) => other.id === server.value.id);
    const next = exists
      ? this.mcpServers.map((other) => (other.id === server.value.id ? server.value : other))
      : [...this.mcpServers, server.value];
    await this.storeMcpServers(next);
    return server;
  }

  async removeMcpServer(id: string): Promise<void> {
    await this.storeMcpServers(this.mcpServers.filter((server) => server.id !== id));
  }

  async testMcpServer(draft: McpServerDraft): Promise<Result<{ serverName: string; toolNames: string[] }, string>> {
    const server = (await loadWebToolsForm()).toMcpServerConfig(draft);
    if (!server.ok) return server;
    const tested = await this.deps.agent.testMcpServer(server.value);
    return tested.ok ? tested : err(tested.error.message);
  }

  private async storeMcpServers(servers: McpServerConfig[]): Promise<void> {
    // Plain objects: structured clone refuses Svelte's state proxies.
    const plain = servers.map((server) => ({
      ...server,
      headers: { ...server.headers },
      allowedTools: [...server.allowedTools],
    }));
    await this.deps.store.set(MCP_SERVERS_SETTING_KEY, plain);
    this.mcpServers = plain;
  }
}

/** A stored model choice, or null when nothing (or nothing readable) is stored. */
function readModelRef(stored: unknown): ModelRef | null {
  const parsed = modelRefSchema.safeParse(stored);
  return parsed.success ? parsed.data : null;
}
