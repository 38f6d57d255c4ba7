import { asProviderId, type ModelRef, type ProviderConfig, type ProviderPreset } from '../core/model';
import type { ProviderStore } from '../core/ports';

export interface NewProviderInput {
  name: string;
  preset: ProviderPreset;
  kind: ProviderConfig['kind'];
  baseUrl: string;
  apiKey: string;
  model: string;
}

/** The configured providers, and the model the composer uses by default. */
export class ProvidersState {
  providers = $state<ProviderConfig[]>([]);
  isLoaded = $state(false);

  constructor(
    private readonly store: ProviderStore,
    private readonly newId: () => string,
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
    const provider: ProviderConfig = {
      id: asProviderId(this.newId()),
      name: input.name.trim(),
      kind: input.kind,
      preset: input.preset,
      baseUrl: input.baseUrl.trim().replace(/\/+$/, ''),
      apiKey: input.apiKey.trim(),
      headers: {},
      models: input.model.trim() ? [input.model.trim()] : [],
      contextWindowOverrides: {},
      createdAt: now,
      updatedAt: now,
    };
    await this.store.put(provider);
    await this.load();
    return provider;
  }

  async remove(provider: ProviderConfig): Promise<void> {
    await this.store.delete(provider.id);
    await this.load();
  }
}
