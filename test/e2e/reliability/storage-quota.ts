import type { CDPSession, Page } from '@playwright/test';

/** A scratch database, never the app's, for the write that makes Chromium ask for the quota. */
const SCRATCH_DB = 'carrel-e2e-quota-probe';
const SAFETY_BYTES = 1_000_000;

/**
 * The origin's storage quota, set through the DevTools protocol (Storage.overrideQuotaForOrigin)
 * from before the app first loads.
 *
 * Chromium checks an IndexedDB transaction against the quota at commit, for the page and its
 * workers alike (Blobs included), but it does not ask the QuotaManager every time: a bucket
 * keeps the space it was last told it had and draws on it, decaying to zero over 30 s
 * (`BucketContext::kBucketSpaceCacheTimeLimit`). So an override lowered later is ignored until a
 * write asks for more than that cached allowance. This helper therefore (1) sets a bounded quota
 * before the first navigation, so the allowance can never be larger than the room it ever left,
 * and (2) after lowering the quota, writes more than that room to a scratch database; the write
 * fails, and the bucket's allowance is now the real, small remainder. `navigator.storage.estimate()`
 * reports the browser's own quota whatever the override; only its `usage` is used here.
 */
export class StorageQuota {
  /** The most room any override left: the largest allowance Chromium may still hold. */
  private largestRoom: number;

  private constructor(
    private readonly page: Page,
    private readonly session: CDPSession,
    private readonly origin: string,
    initialRoom: number,
  ) {
    this.largestRoom = initialRoom;
  }

  /** Call on a page that has not loaded the app yet (a fresh context, about:blank). */
  static async limitBeforeFirstLoad(page: Page, origin: string, room: number): Promise<StorageQuota> {
    const session = await page.context().newCDPSession(page);
    await session.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: room });
    return new StorageQuota(page, session, origin, room);
  }

  /** Bytes the origin uses now. */
  usage(): Promise<number> {
    return this.page.evaluate(async () => (await navigator.storage.estimate()).usage ?? 0);
  }

  /** The quota becomes what is used now plus `room` bytes, in force for the very next write. */
  async leaveFree(room: number): Promise<void> {
    if (!Number.isFinite(this.largestRoom)) throw new Error('The quota was lifted; lower it again in a fresh context.');
    const quotaSize = (await this.usage()) + room;
    await this.session.send('Storage.overrideQuotaForOrigin', { origin: this.origin, quotaSize });
    if (room < this.largestRoom) await this.expireCachedAllowance();
    this.largestRoom = Math.max(this.largestRoom, room);
  }

  /** Back to the browser's own quota. Lower it again only with a fresh context. */
  async lift(): Promise<void> {
    await this.session.send('Storage.overrideQuotaForOrigin', { origin: this.origin });
    this.largestRoom = Number.POSITIVE_INFINITY;
  }

  /** A write larger than any allowance Chromium may hold, so it asks the QuotaManager again. */
  private async expireCachedAllowance(): Promise<void> {
    const outcome = await this.page.evaluate(
      ([name, size]) =>
        new Promise<string>((resolve) => {
          const open = indexedDB.open(name, 1);
          open.onupgradeneeded = () => open.result.createObjectStore('probe');
          open.onerror = () => resolve(`open failed: ${open.error?.name ?? 'unknown'}`);
          open.onsuccess = () => {
            const db = open.result;
            const transaction = db.transaction('probe', 'readwrite');
            transaction.objectStore('probe').put('x'.repeat(size), 'filler');
            const finish = (result: string) => {
              db.close();
              const removal = indexedDB.deleteDatabase(name);
              removal.onsuccess = removal.onerror = () => resolve(result);
            };
            transaction.oncomplete = () => finish('committed');
            transaction.onabort = () => finish(transaction.error?.name ?? 'aborted');
          };
        }),
      [SCRATCH_DB, this.largestRoom + SAFETY_BYTES] as const,
    );
    if (outcome !== 'QuotaExceededError') {
      throw new Error(`The lowered quota is not in force: a write beyond it ended "${outcome}".`);
    }
  }
}
