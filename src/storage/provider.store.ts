import { providerConfigSchema, type ProviderId } from '../core/model';
import type { ProviderStore } from '../core/ports';
import type { CarrelDb } from './db';
import { createEntityStore } from './entity-table';

/** Providers with their API keys: the keys stay in IndexedDB and are never logged. */
export function createProviderStore(db: CarrelDb): ProviderStore {
  return createEntityStore<typeof providerConfigSchema, ProviderId>(
    db,
    db.providers,
    providerConfigSchema,
    'provider',
  );
}
