/**
 * Bench 4: the app's stores over Chromium's real IndexedDB — write 10,000 messages, load a
 * 10,000-message chain, list 1,000 sessions — each next to Dexie's bulk call on the same rows.
 *
 *     npx tsx test/bench/storage.bench.ts
 */
import { openBenchPage, startBrowserBench } from './lib/bench-browser';
import { createSection, emitSection, spreadOf } from './lib/report';
import type { StorageFigures } from './pages/storage.page';

const MESSAGE_COUNT = 10_000;
const SESSION_COUNT = 1_000;
const CHAIN_LOAD_TARGET_MS = 300;

async function main(): Promise<void> {
  const section = createSection('storage', '4. Storage in real IndexedDB (Chromium)');
  const bench = await startBrowserBench({ storage: 'test/bench/pages/storage.page.ts' });
  try {
    const page = await openBenchPage(bench.browser, 'storage');
    const figures = await page.evaluate(
      ([messages, sessions]) =>
        (
          globalThis as unknown as {
            runStorage: (messages: number, sessions: number) => Promise<StorageFigures>;
          }
        ).runStorage(messages, sessions),
      [MESSAGE_COUNT, SESSION_COUNT - 1] as const,
    );
    if (figures.loadedLength !== MESSAGE_COUNT)
      throw new Error(`loadChain returned ${figures.loadedLength} of ${MESSAGE_COUNT} messages`);
    const count = MESSAGE_COUNT.toLocaleString('en-US');
    section.figures.push({
      name: `write ${count} messages, one messages.put each (one run)`,
      unit: 'ms',
      spread: spreadOf(figures.writeMs),
      baseline: {
        name: `db.messages.bulkPut of ${count} rows`,
        unit: 'ms',
        spread: spreadOf(figures.bulkWriteMs),
      },
      ratioLabel: '× (bulk ÷ put)',
    });
    section.figures.push({
      name: `loadChain of a ${count}-message chain`,
      unit: 'ms',
      spread: figures.chainLoad,
      baseline: {
        name: 'one indexed read of the same rows (sessionId)',
        unit: 'ms',
        spread: figures.bulkRead,
      },
      ratioLabel: '× (indexed read ÷ loadChain)',
      target: `< ${CHAIN_LOAD_TARGET_MS} ms`,
      isTargetMet: figures.chainLoad.median < CHAIN_LOAD_TARGET_MS,
    });
    section.figures.push({
      name: `sessions.list() of ${figures.sessionCount.toLocaleString('en-US')} sessions`,
      unit: 'ms',
      spread: figures.listSessions,
    });
    section.values.push({
      name: 'messages.put per message (write time ÷ count)',
      value: Number((figures.writeMs / MESSAGE_COUNT).toFixed(2)),
      unit: 'ms',
    });
  } finally {
    await bench.close();
  }
  section.notes.push(
    'loadChain walks parent links with one IndexedDB get per message (storage/message.store.ts); a ratio below 1 is the price of that walk against a single indexed read of the same rows.',
    'Checkpoint writes during a stream were not measured in this run (see the report).',
  );
  await emitSection(section);
}

await main();
