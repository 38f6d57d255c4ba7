import { asProviderId, bindKey, decideKeyUse, isKeyRequired, type KeyUse, type ModelInfo, type ModelRef, type ProviderConfig, type ProviderPreset } from '../../core/model';
import type { ProviderStore } from '../../core/ports';
import { modelCatalog as pageCatalog, type ModelCatalogState } from './model-catalog.svelte';
import { err, type Result } from '../../util/result';
import type { WorkerResult } from '../../workers/agent/agent.api';
import type { ProviderFields } from './provider-form';

export interface NewProviderInput {
  name: string;
  preset: ProviderPreset;
  kind: ProviderConfig['kind'];
  baseUrl: string;
  apiKey: string;
  model: string;
  /** Extra headers (custom endpoints). */
  headers?: Record<string, string>;
  /** Further models to enable after `model`. */
  moreModels?: string[];
}

/** The worker's `listModels`: what the Test connection button calls. */
export type ListModels = (providerId: string) => Promise<WorkerResult<ModelInfo[]>>;

/** The configured providers, and the model the composer uses by default. */
export class ProvidersState {
  providers = $state<ProviderConfig[]>([]);
  isLoaded = $state(false);

  constructor(
    private readonly store: ProviderStore,
    private readonly newId: () => string,
    private readonly listModelsInWorker?: ListModels,
    private readonly catalog: ModelCatalogState = pageCatalog,
  ) {}

  readonly models: ModelRef[] = $derived(
    this.providers.flatMap((provider) => provider.models.map((modelId) => ({ providerId: provider.id, modelId }))),
  );

  async load(): Promise<void> {
    this.providers = await this.store.list();
    this.isLoaded = true;
  }

  async add(input: NewProviderInput): Promise<ProviderConfig> {
    const now = Date.now();
    const models = [input.model, ...(input.moreModels ?? [])].map((m) => m.trim()).filter((m) => m !== '');
    const baseUrl = input.baseUrl.trim().replace(/\/+$/, '');
    const provider: ProviderConfig = {
      id: asProviderId(this.newId()),
      name: input.name.trim(),
      kind: input.kind,
      preset: input.preset,
      baseUrl,
      // The key is bound to the origin it was entered for; it is never sent anywhere else.
      ...bindKey(input.apiKey.trim(), baseUrl),
      headers: { ...input.headers },
      models: uniqueModels(models),
      contextWindowOverrides: {},
      createdAt: now,
      updatedAt: now,
    };
    await this.store.put(provider);
    await this.load();
    return provider;
  }

  /**
   * Saves the edit form; overrides of models no longer enabled are dropped. A key typed in the
   * form is bound to the form's base URL; otherwise the stored key keeps the origin it had.
   */
  async update(provider: ProviderConfig, fields: ProviderFields, options: { isKeyTyped: boolean }): Promise<void> {
    const overrides = Object.fromEntries(
      Object.entries(provider.contextWindowOverrides).filter(([modelId]) => fields.models.includes(modelId)),
    );
    const { keyOrigin: _previous, ...unbound } = provider;
    const key = options.isKeyTyped ? bindKey(fields.apiKey, fields.baseUrl) : pickKey(provider);
    await this.put({
      ...unbound,
      ...fields,
      ...key,
      headers: { ...fields.headers },
      models: [...fields.models],
      contextWindowOverrides: overrides,
    });
  }

  /** A key entered for a provider that needs one: bound to the provider's base URL. */
  async setKey(provider: ProviderConfig, apiKey: string): Promise<void> {
    const { keyOrigin: _previous, ...unbound } = provider;
    await this.put({ ...unbound, ...bindKey(apiKey.trim(), provider.baseUrl) });
  }

  /** Whether requests can use the provider's key as stored (`needed`/`wrong-origin`: ask for it). */
  describeKeyUse(provider: ProviderConfig): KeyUse {
    return decideKeyUse(provider, isKeyRequired(provider.preset));
  }

  async setModels(provider: ProviderConfig, models: string[]): Promise<void> {
    await this.put({ ...provider, models: uniqueModels(models) });
  }

  /** null removes the override: the catalog's value (or the conservative guess) applies again. */
  async setContextWindow(provider: ProviderConfig, modelId: string, contextWindow: number | null): Promise<void> {
    const overrides = { ...provider.contextWindowOverrides };
    if (contextWindow === null) delete overrides[modelId];
    else overrides[modelId] = contextWindow;
    await this.put({ ...provider, contextWindowOverrides: overrides });
  }

  async remove(provider: ProviderConfig): Promise<void> {
    await this.store.delete(provider.id);
    await this.load();
  }

  /**
   * What the app assumes about a model: catalog, override, or a guess marked `isEstimate`; null
   * until the catalogue has arrived (it loads after first paint).
   */
  describeModel(provider: ProviderConfig, modelId: string): ModelInfo | null {
    return this.catalog.catalog?.resolveModelInfo(provider, modelId) ?? null;
  }

  /** Test connection: the provider's models, or the typed error's message. */
  async listModels(provider: ProviderConfig): Promise<Result<ModelInfo[], string>> {
    if (!this.listModelsInWorker) return err('Testing the connection is not available here.');
    const listed = await this.listModelsInWorker(provider.id);
    return listed.ok ? listed : err(listed.error.message);
  }

  private async put(provider: ProviderConfig): Promise<void> {
    // A plain copy: IndexedDB's structured clone refuses Svelte's state proxies.
    await this.store.put({
      ...provider,
      headers: { ...provider.headers },
      models: [...provider.models],
      contextWindowOverrides: { ...provider.contextWindowOverrides },
      updatedAt: Date.now(),
    });
    await this.load();
  }
}

function pickKey(provider: ProviderConfig): Pick<ProviderConfig, 'apiKey' | 'keyOrigin'> {
  return provider.keyOrigin === undefined ? { apiKey: provider.apiKey } : { apiKey: provider.apiKey, keyOrigin: provider.keyOrigin };
}

/** In order, without repeats: the first model stays the default. */
function uniqueModels(models: readonly string[]): string[] {
  return models.filter((model, index) => models.indexOf(model) === index);
}
