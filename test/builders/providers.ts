import { asProviderId, type ProviderConfig } from '../../src/core/model';

/** The built-in model's provider as the app stores it, serving models from `baseUrl`. */
export function builtInProvider(overrides: Partial<ProviderConfig> = {}): ProviderConfig {
  return {
    id: asProviderId('built-in'),
    name: 'Built-in model',
    kind: 'local',
    preset: 'local',
    baseUrl: 'http://127.0.0.1:1/models',
    apiKey: '',
    headers: {},
    models: ['carrel/tiny-chat'],
    contextWindowOverrides: {},
    createdAt: 0,
    updatedAt: 0,
    ...overrides,
  };
}
