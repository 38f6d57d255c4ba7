import type { Page } from '@playwright/test';

/** Everything the app keeps in the browser for its origin, as searchable text. */
export interface StoredText {
  localStorage: string;
  sessionStorage: string;
  /** Request URLs and response bodies of every Cache Storage entry. */
  cacheStorage: string;
  /** Rows of every IndexedDB table of the `carrel` database but `providers`, Blobs read as text. */
  tables: Record<string, string>;
  /** The `providers` table, where API keys belong. */
  providerRows: string;
  providers: Array<{ apiKey: string; baseUrl: string; keyOrigin?: string }>;
}

/**
 * Reads localStorage, sessionStorage, Cache Storage and the app's IndexedDB from the page, the
 * places an API key must never reach. Raw browser APIs, no app code.
 */
export function readStoredText(
  page: Page,
  { precacheNeedle }: { precacheNeedle?: string } = {},
): Promise<StoredText> {
  return page.evaluate(async (precacheNeedle) => {
    const cached: string[] = [];
    if ('caches' in window) {
      for (const name of await caches.keys()) {
        const cache = await caches.open(name);
        // Workbox's precache and the runtime cache of `/assets/` hold the build's own files
        // (megabytes of JS and WASM): their URLs are read always; their bodies are searched here
        // in the page for `precacheNeedle` when one is given, rather than sent to the test
        // whole, and a body that holds it is reported with the needle so the caller's search
        // finds it.
        const isPrecacheName = name.includes('precache');
        for (const request of await cache.keys()) {
          cached.push(request.url);
          const url = new URL(request.url);
          const isPrecache = isPrecacheName || (url.origin === location.origin && url.pathname.startsWith('/assets/'));
          if (isPrecache && precacheNeedle === undefined) continue;
          const body = (await (await cache.match(request))?.text()) ?? '';
          if (!isPrecache) cached.push(body);
          else if (precacheNeedle !== undefined && body.includes(precacheNeedle))
            cached.push(`${request.url} holds ${precacheNeedle}`);
        }
      }
    }
    const tables: Record<string, string> = {};
    let providerRows = '';
    const providers: Array<{ apiKey: string; baseUrl: string; keyOrigin?: string }> = [];
    const databases = await indexedDB.databases();
    if (databases.some((database) => database.name === 'carrel')) {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open('carrel');
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(new Error(String(open.error)));
      });
      for (const name of [...db.objectStoreNames]) {
        const rows = await new Promise<unknown[]>((resolve, reject) => {
          const request = db.transaction(name, 'readonly').objectStore(name).getAll();
          request.onsuccess = () => resolve(request.result);
          request.onerror = () => reject(new Error(String(request.error)));
        });
        // Blobs and typed arrays stringify to {}: their text is read too.
        const texts = await Promise.all(rows.map(async (row) => JSON.stringify(row) + (await readBlobs(row))));
        if (name === 'providers') {
          providerRows = texts.join('\n');
          for (const row of rows as Array<{ apiKey?: unknown; baseUrl?: unknown; keyOrigin?: unknown }>)
            providers.push({
              apiKey: typeof row.apiKey === 'string' ? row.apiKey : '',
              baseUrl: typeof row.baseUrl === 'string' ? row.baseUrl : '',
              ...(typeof row.keyOrigin === 'string' ? { keyOrigin: row.keyOrigin } : {}),
            });
        } else tables[name] = texts.join('\n');
      }
      db.close();
    }
    return {
      localStorage: JSON.stringify(Object.entries(localStorage)),
      sessionStorage: JSON.stringify(Object.entries(sessionStorage)),
      cacheStorage: cached.join('\n'),
      tables,
      providerRows,
      providers,
    };

    async function readBlobs(value: unknown): Promise<string> {
      if (value instanceof Blob) return value.text();
      if (Array.isArray(value)) return (await Promise.all(value.map(readBlobs))).join('');
      if (value !== null && typeof value === 'object')
        return (await Promise.all(Object.values(value).map(readBlobs))).join('');
      return '';
    }
  }, precacheNeedle);
}

/** The names of the places whose text holds `secret`. */
export function placesHolding(places: Record<string, string>, secret: string): string[] {
  return Object.entries(places).flatMap(([place, text]) => (text.includes(secret) ? [place] : []));
}

/**
 * The value the app keeps under `key` in its settings table, read with raw IndexedDB calls (no
 * app code): lets a test wait until a choice is stored before it reloads the page.
 */
export function readStoredSetting(page: Page, key: string): Promise<unknown> {
  return page.evaluate(
    (key) =>
      new Promise<unknown>((resolve, reject) => {
        const open = indexedDB.open('carrel');
        open.onerror = () => reject(open.error ?? new Error('The app database did not open.'));
        open.onsuccess = () => {
          const database = open.result;
          const request = database.transaction('settings', 'readonly').objectStore('settings').get(key);
          request.onerror = () => reject(request.error ?? new Error(`The setting "${key}" could not be read.`));
          request.onsuccess = () => {
            database.close();
            resolve((request.result as { value?: unknown } | undefined)?.value ?? null);
          };
        };
      }),
    key,
  );
}
