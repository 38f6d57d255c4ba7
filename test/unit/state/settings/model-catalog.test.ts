import { describe, expect, it } from 'vitest';
import * as catalogModule from '../../../../src/core/model/model-catalog';
import { asProviderId, type ProviderConfig } from '../../../../src/core/model';
import { ModelCatalogState, type ModelCatalog } from '../../../../src/state/settings/model-catalog.svelte';
import { ProvidersState } from '../../../../src/state/settings/providers.svelte';

const provider = {
  id: asProviderId('p1'),
  preset: 'openai',
  contextWindowOverrides: {},
} as unknown as ProviderConfig;

describe('ModelCatalogState', () => {
  it('fetches the catalogue once however many ask for it', async () => {
    let imports = 0;
    const state = new ModelCatalogState(() => {
      imports++;
      return Promise.resolve(catalogModule);
    });
    expect(state.catalog).toBeNull();
    await Promise.all([state.load(), state.load()]);
    await state.load();
    expect(imports).toBe(1);
    expect(state.catalog).toBe(catalogModule);
  });

  it('tries again after a failed fetch instead of keeping the failure', async () => {
    let attempts = 0;
    const state = new ModelCatalogState(() => {
      attempts++;
      return attempts === 1 ? Promise.reject(new Error('offline')) : Promise.resolve<ModelCatalog>(catalogModule);
    });
    await expect(state.load()).rejects.toThrow('offline');
    expect(state.catalog).toBeNull();
    await state.load();
    expect(attempts).toBe(2);
    expect(state.catalog).toBe(catalogModule);
  });

  it('lets the providers describe a model once the catalogue has arrived', async () => {
    const catalog = new ModelCatalogState(() => Promise.resolve(catalogModule));
    const providers = new ProvidersState({} as never, () => 'id', undefined, catalog);
    expect(providers.describeModel(provider, 'gpt-4o')).toBeNull();
    await catalog.load();
    expect(providers.describeModel(provider, 'gpt-4o')).toEqual(catalogModule.resolveModelInfo(provider, 'gpt-4o'));
    expect(providers.describeModel(provider, 'gpt-4o')?.isEstimate).toBe(false);
  });
});
