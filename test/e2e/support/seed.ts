import { expect, type Page } from '@playwright/test';
import { randomUUID } from 'node:crypto';
import { asProviderId, bindKey, providerConfigSchema, type ProviderConfig, type ProviderKind } from '../../../src/core/model';
import { PROVIDER_PRESETS } from '../../../src/core/model/provider-presets';
import { providerPresetSchema } from '../../../src/core/model/provider';
import { PRESET_FOR_KIND } from '../pages/settings-page';

export interface SeedProviderInput {
  kind?: Exclude<ProviderKind, 'local'>;
  /** The name shown in Settings and the model picker; the preset's name when left out. */
  name?: string;
  baseUrl: string;
  /** No key unless given: a custom endpoint needs none. */
  apiKey?: string;
  /** The first is the default model. */
  model: string;
  moreModels?: string[];
}

export interface SeedOptions {
  /** The address the app opens at once the rows are stored (a fresh load). */
  open?: string;
}

/**
 * The provider row Settings would store for this input, checked by the app's own schema (a
 * row the app would refuse fails here, not as a confusing screen later). Keys are bound to the
 * origin of the base URL, as when typed in the form.
 */
export function buildProviderRow(input: SeedProviderInput, now = Date.now()): ProviderConfig {
  // The preset Settings' form starts from for this protocol.
  const preset = providerPresetSchema.parse(PRESET_FOR_KIND[input.kind ?? 'openai-compatible']);
  const baseUrl = input.baseUrl.trim().replace(/\/+$/, '');
  return providerConfigSchema.parse({
    id: asProviderId(randomUUID()),
    name: input.name ?? PROVIDER_PRESETS[preset].name,
    kind: input.kind ?? 'openai-compatible',
    preset,
    baseUrl,
    ...bindKey((input.apiKey ?? '').trim(), baseUrl),
    headers: {},
    models: [...new Set([input.model, ...(input.moreModels ?? [])])],
    contextWindowOverrides: {},
    createdAt: now,
    updatedAt: now,
  });
}

/**
 * Preconditions stored straight into the app's IndexedDB, for tests whose subject is not the
 * set-up itself (settings/providers tests add theirs through the form). The app creates and
 * upgrades its database on the first load; the rows then go into that database with raw
 * IndexedDB calls, and the app is loaded again so it reads them as at any start.
 */
export class SeedData {
  constructor(readonly page: Page) {}

  /** Stores one provider and opens the app with it; returns the stored row. */
  async provider(input: SeedProviderInput, options: SeedOptions = {}): Promise<ProviderConfig> {
    const [row] = await this.providers([input], options);
    if (row === undefined) throw new Error('No provider was seeded.');
    return row;
  }

  /**
   * What the first screen's Custom endpoint form leaves: one OpenAI-compatible provider (key
   * `sk-e2e` unless given), and the chat screen open with its composer.
   */
  async customEndpoint(input: { baseUrl: string; model: string; apiKey?: string }): Promise<ProviderConfig> {
    const row = await this.provider({ baseUrl: input.baseUrl, model: input.model, apiKey: input.apiKey ?? 'sk-e2e' });
    await expect(this.page.getByLabel('Message', { exact: true })).toBeVisible();
    return row;
  }

  /** Stores providers in the given order (the first one's model is the default) and opens the app. */
  async providers(inputs: readonly SeedProviderInput[], { open = '/#/' }: SeedOptions = {}): Promise<ProviderConfig[]> {
    const start = Date.now();
    // Distinct creation times keep the order: providers are listed by when they were added.
    const rows = inputs.map((input, index) => buildProviderRow(input, start + index));
    await this.putRows('providers', rows, open);
    return rows;
  }

  /** Opens the app at `open` (the database exists from then on), stores the rows, loads the app again. */
  private async putRows(table: string, rows: readonly unknown[], open: string): Promise<void> {
    const page = this.page;
    await page.goto(open);
    // The app opens (and creates) its database before it draws anything; opening it here before
    // that would create an empty one under the app's name.
    await page.waitForFunction(async () => (await indexedDB.databases()).some((database) => database.name === 'carrel' && (database.version ?? 0) > 1));
    await page.evaluate(
      async ({ table, rows }) => {
        const db = await new Promise<IDBDatabase>((resolve, reject) => {
          // No version: the one the app made (a request made during its upgrade waits for it).
          const request = indexedDB.open('carrel');
          request.onsuccess = () => resolve(request.result);
          request.onerror = () => reject(new Error(`Could not open the app's database: ${String(request.error)}`));
        });
        try {
          await new Promise<void>((resolve, reject) => {
            const transaction = db.transaction(table, 'readwrite');
            for (const row of rows) transaction.objectStore(table).put(row);
            transaction.oncomplete = () => resolve();
            transaction.onerror = () => reject(new Error(`Could not store the ${table}: ${String(transaction.error)}`));
          });
        } finally {
          db.close();
        }
      },
      { table, rows },
    );
    await page.reload();
  }
}
