import { expect, test, type Page } from '@playwright/test';
import { z } from 'zod';
import { randomUUID } from 'node:crypto';
import { asProviderId, bindKey, providerConfigSchema, type ProviderConfig, type ProviderKind } from '../../../src/core/model';
import { PROVIDER_PRESETS } from '../../../src/core/model/provider-presets';
import { providerPresetSchema } from '../../../src/core/model/provider';
import { PRESET_FOR_KIND } from '../pages/settings-page';

/** The name the app gives its IndexedDB database. */
const APP_DATABASE = 'carrel';

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
  /** Context windows set by hand per model (Settings' "Context window for …" fields), in tokens. */
  contextWindows?: Record<string, number>;
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
    contextWindowOverrides: input.contextWindows ?? {},
    createdAt: now,
    updatedAt: now,
  });
}

/**
 * Preconditions stored straight into the app's IndexedDB, for tests whose subject is not the
 * set-up itself (settings/providers tests add theirs through the form). The rows go into a copy
 * of the database the app creates on its first start, put in place before the page opens the
 * app, which then reads them as at any start.
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

  /**
   * Stores the rows in a copy of the app's empty database, then opens the app at `open`: it
   * reads them as at any start. The copy is made once per worker process (see
   * {@link emptyAppDatabase}); the page itself loads the app only once.
   */
  private async putRows(table: string, rows: readonly unknown[], open: string): Promise<void> {
    const page = this.page;
    const origin = new URL(resolveAppUrl(page, '/')).origin;
    const database = await emptyAppDatabase(page, origin);
    const store = database.stores.find((candidate) => candidate.name === table);
    if (store === undefined) throw new Error(`The app's database has no table "${table}".`);
    const seeded: StoredDatabase = {
      ...database,
      stores: database.stores.map((candidate) =>
        candidate === store ? { ...candidate, records: [...candidate.records, ...rows.map((row) => ({ value: row }))] } : candidate,
      ),
    };
    // Also clears whatever the context stored before (a fresh context has nothing). Playwright
    // restores an origin's `indexedDB` as storageState({ indexedDB: true }) gives it, though the
    // declared type of setStorageState's argument leaves that field out (a variable, not a
    // literal, so TypeScript lets the extra field through).
    const state = { cookies: [], origins: [{ origin, localStorage: [], indexedDB: [seeded] }] };
    await page.context().setStorageState(state);
    await page.goto(open);
  }
}

/** One IndexedDB database as Playwright's storage state holds it (`storageState({ indexedDB: true })`). */
const storedDatabaseSchema = z.looseObject({
  name: z.string(),
  version: z.number(),
  stores: z.array(z.looseObject({ name: z.string(), records: z.array(z.unknown()) })),
});
type StoredDatabase = z.infer<typeof storedDatabaseSchema>;

const storedOriginsSchema = z.looseObject({
  origins: z.array(z.looseObject({ origin: z.string(), indexedDB: z.array(storedDatabaseSchema).optional() })),
});

/** The app's database as its first start leaves it, per origin; one copy per worker process. */
const emptyDatabases = new Map<string, Promise<StoredDatabase>>();

/**
 * The database the app creates and upgrades on its first start, with its tables and indexes and
 * no rows, taken from a context of its own. A seeded copy of it is the database of an app that
 * was started, then given rows, without starting the app twice in every test.
 */
function emptyAppDatabase(page: Page, origin: string): Promise<StoredDatabase> {
  let database = emptyDatabases.get(origin);
  if (database === undefined) {
    database = readEmptyAppDatabase(page, origin);
    // A failed attempt is not kept: the next test tries again and reports its own error.
    database.catch(() => emptyDatabases.delete(origin));
    emptyDatabases.set(origin, database);
  }
  return database;
}

async function readEmptyAppDatabase(page: Page, origin: string): Promise<StoredDatabase> {
  const browser = page.context().browser();
  if (browser === null) throw new Error('The seed needs the browser of the test page.');
  const context = await browser.newContext({ serviceWorkers: 'block' });
  try {
    const appPage = await context.newPage();
    await appPage.goto(`${origin}/`);
    // The app opens (and creates) its database before it draws anything.
    await appPage.waitForFunction(async (name) => (await indexedDB.databases()).some((database) => database.name === name && (database.version ?? 0) > 1), APP_DATABASE);
    // Reading it waits for the app's upgrade to finish (an open without a version queues behind
    // it), but a read taken while the app is still starting can come back without the origin's
    // databases: read again until the database is there.
    let database: StoredDatabase | undefined;
    await expect
      .poll(
        async () => {
          const state = storedOriginsSchema.parse(await context.storageState({ indexedDB: true }));
          database = state.origins.find((stored) => stored.origin === origin)?.indexedDB?.find((stored) => stored.name === APP_DATABASE);
          return database !== undefined;
        },
        { message: `The app created no "${APP_DATABASE}" database at ${origin}.`, timeout: 30_000 },
      )
      .toBe(true);
    if (database === undefined) throw new Error(`The app created no "${APP_DATABASE}" database at ${origin}.`);
    const rows = database.stores.filter((store) => store.records.length > 0).map((store) => store.name);
    if (rows.length > 0) throw new Error(`The app's first start left rows in ${rows.join(', ')}: a seed would not start from an empty database.`);
    return database;
  } finally {
    await context.close();
  }
}

/** The absolute address `path` resolves to in the test's configuration (its baseURL). */
function resolveAppUrl(page: Page, path: string): string {
  const current = page.url();
  if (current.startsWith('http')) return new URL(path, current).href;
  // A page that has not navigated yet: the configured baseURL, as page.goto would resolve it.
  const baseURL = test.info().project.use.baseURL;
  if (baseURL === undefined) throw new Error('The seed needs a baseURL in playwright.config.ts.');
  return new URL(path, baseURL).href;
}
