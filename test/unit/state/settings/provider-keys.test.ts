import { describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../../../src/core/model';
import { PROVIDER_PRESETS } from '../../../../src/core/model/provider-presets';
import type { ProviderStore } from '../../../../src/core/ports';
import { findKeyOriginProblem, toProviderDraft, validateProviderDraft } from '../../../../src/state/settings/provider-form';
import { ProvidersState } from '../../../../src/state/settings/providers.svelte';

function createMemoryProviders(): ProviderStore {
  const rows = new Map<string, ProviderConfig>();
  const store: ProviderStore = {
    get: (id) => Promise.resolve(rows.get(id)),
    list: () => Promise.resolve([...rows.values()]),
    put: (row) => {
      rows.set(row.id, structuredClone(row));
      return Promise.resolve();
    },
    delete: (id) => {
      rows.delete(id);
      return Promise.resolve();
    },
  };
  return store;
}

describe('a key stays bound to the origin it was typed for', () => {
  it('binds a new provider’s key to its base URL, and asks again when an edit moves it elsewhere', async () => {
    const providers = new ProvidersState(createMemoryProviders(), () => 'p1');
    const added = await providers.add({
      name: 'OpenAI',
      preset: 'openai',
      kind: 'openai',
      baseUrl: 'https://api.openai.com/v1/',
      apiKey: ' sk-typed-0123456789 ',
      model: 'gpt-4o',
    });
    expect(added).toMatchObject({ apiKey: 'sk-typed-0123456789', keyOrigin: 'https://api.openai.com' });
    expect(providers.describeKeyUse(added)).toBe('send');

    const moved = { ...toProviderDraft(added), apiKey: '', baseUrl: 'https://proxy.example/v1' };
    expect(findKeyOriginProblem(added, moved)).toMatch(/Enter the API key again .* entered for https:\/\/api\.openai\.com/);
    expect(findKeyOriginProblem(added, { ...moved, baseUrl: 'https://api.openai.com/v2' })).toBeUndefined();

    // Typed again for the new address, the key goes there (and only there).
    const fields = validateProviderDraft({ ...moved, apiKey: 'sk-typed-0123456789' });
    if (!fields.ok) throw new Error(fields.error);
    await providers.update(added, fields.value, { isKeyTyped: true });
    expect(providers.providers[0]).toMatchObject({ baseUrl: 'https://proxy.example/v1', keyOrigin: 'https://proxy.example' });
  });

  it('marks a provider without its required key as needing one, until the key is entered', async () => {
    const providers = new ProvidersState(createMemoryProviders(), () => 'p2');
    const restored = await providers.add({
      name: 'Anthropic',
      preset: 'anthropic',
      kind: 'anthropic',
      baseUrl: 'https://api.anthropic.com/v1',
      apiKey: '',
      model: 'claude-sonnet-4-5',
    });
    expect(providers.describeKeyUse(restored)).toBe('needed');
    await providers.setKey(restored, 'sk-ant-entered-0123');
    const [saved] = providers.providers;
    expect(saved).toMatchObject({ apiKey: 'sk-ant-entered-0123', keyOrigin: 'https://api.anthropic.com' });
    expect(saved && providers.describeKeyUse(saved)).toBe('send');
  });

  it('asks no key of a provider that needs none, as the settings form says', async () => {
    const providers = new ProvidersState(createMemoryProviders(), () => 'p3');
    const local = await providers.add({
      name: 'Ollama',
      preset: 'ollama',
      kind: 'openai-compatible',
      baseUrl: 'http://localhost:11434/v1',
      apiKey: '',
      model: 'llama3.2',
    });
    expect(providers.describeKeyUse(local)).toBe('none');
    const keyless = Object.values(PROVIDER_PRESETS).filter((info) => !info.isKeyRequired).map((info) => info.preset);
    expect(keyless.sort()).toEqual(['custom', 'lmstudio', 'local', 'ollama']);
  });
});
