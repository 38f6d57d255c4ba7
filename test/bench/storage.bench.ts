/**
 * Bench 4: the app's stores over Chromium's real IndexedDB — write 10,000 messages, load a
 * 10,000-message chain, list 1,000 sessions — each next to Dexie's bulk call on the same rows;
 * then, in Node, how often the agent writes an answer while it streams for about ten seconds.
 *
 *     npx tsx test/bench/storage.bench.ts
 */
import { openBenchPage, startBrowserBench } from './lib/bench-browser';
import { measureCheckpointWrites } from './lib/checkpoint-writes';
import { createSection, emitSection, spreadOf } from './lib/report';
import type { StorageFigures, TrackingFigures } from './pages/storage.page';

const MESSAGE_COUNT = 10_000;
const SESSION_COUNT = 1_000;
/** The goal for a 10,000-message chain; 300 ms was the earlier one, met since. */
const CHAIN_LOAD_TARGET_MS = 100;
const STREAM_SECONDS = 10;
const STREAM_DELTAS_PER_SECOND = 50;
const STREAM_CHARS_PER_DELTA = 4;
const CHECKPOINT_WRITES_PER_SECOND_TARGET = 1;
const TRACKING_MESSAGES_PER_ROUND = 300;

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
      name: `loadChain of a ${count}-message chain without packs (its first load after the upgrade to packs)`,
      unit: 'ms',
      spread: figures.firstChainLoad,
      baseline: {
        name: 'one indexed read of the same rows (sessionId)',
        unit: 'ms',
        spread: figures.bulkRead,
      },
      ratioLabel: '× (indexed read ÷ loadChain)',
    });
    section.figures.push({
      name: `packing that chain in the background after its first load, until done`,
      unit: 'ms',
      spread: figures.packing,
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
      name: 'fromMessageRow over the same rows (zod, jitless as under the CSP)',
      unit: 'ms',
      spread: figures.convertRows,
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
    const tracking = await page.evaluate(
      (perRound) =>
        (
          globalThis as unknown as {
            runTracking: (perRound: number) => Promise<TrackingFigures>;
          }
        ).runTracking(perRound),
      TRACKING_MESSAGES_PER_ROUND,
    );
    section.figures.push({
      name: `messages.put where sync is set up (change tracking), per message (rounds of ${tracking.messagesPerRound})`,
      unit: 'ms',
      spread: tracking.trackedMsPerWrite,
      baseline: {
        name: 'the same writes where sync was never set up (no tracking)',
        unit: 'ms',
        spread: tracking.untrackedMsPerWrite,
      },
      ratioLabel: '× (untracked ÷ tracked)',
    });
    section.values.push({
      name: 'change tracking: tracked ÷ untracked write time (medians)',
      value: Number(
        (tracking.trackedMsPerWrite.median / tracking.untrackedMsPerWrite.median).toFixed(2),
      ),
      unit: '×',
    });
  } finally {
    await bench.close();
  }

  const stream = await measureCheckpointWrites({
    seconds: STREAM_SECONDS,
    deltasPerSecond: STREAM_DELTAS_PER_SECOND,
    charsPerDelta: STREAM_CHARS_PER_DELTA,
  });
  section.values.push(
    {
      name: `answer writes while streaming ${stream.deltas} deltas for ${(stream.streamMs / 1000).toFixed(1)} s, most in any 1 s window`,
      value: stream.maxStreamingWritesPerSecond,
      unit: 'writes',
      target: `≤ ${CHECKPOINT_WRITES_PER_SECOND_TARGET}`,
      isTargetMet: stream.maxStreamingWritesPerSecond <= CHECKPOINT_WRITES_PER_SECOND_TARGET,
    },
    { name: 'answer writes while streaming, total', value: stream.streamingWrites, unit: 'writes' },
    {
      name: 'shortest gap between two of those writes',
      value: Math.min(...stream.gapsMs.slice(0, -1)),
      unit: 'ms',
    },
    {
      name: 'answer writes with the final save, most in any 1 s window',
      value: stream.maxAnswerWritesPerSecond,
      unit: 'writes',
    },
  );
  section.notes.push(
    'loadChain walks up the chain one line at a time (src/storage/message-lines.ts): a keyed read where the walk enters a line, then the rest of the line. A first load reads that rest with one [lineId+depth] range read, so a straight 10,000-message chain is two reads; it then packs the line in the background (src/storage/message-packs.ts): each 128 settled messages copied into one row, dropped by any write to one of them. Chats written since (by the store, an import or sync) are packed as they are written: a settled message that ends a bucket packs it once its transaction commits. Every later load reads the packs and one range read for the messages after the last whole pack. The baseline reads the same rows through the sessionId index; the rest of loadChain is fromMessageRow, measured on its own. Loads without packs are of chains written in bulk (the same rows) with their packs taken out, one each, deleted after.',
    'Before schema version 3 (run of 2026-11-21): loadChain 5,690 ms, one get per message; the indexed read 514 ms. Version 3 also dropped the copy of each answer’s text that assistant rows kept, which roughly halved the bytes a chain load reads.',
    `Answer writes: one real turn through the agent host (real LLM client, timer scheduler, stores on fake-indexeddb in Node) against the mock LLM server at ${STREAM_DELTAS_PER_SECOND} deltas/s. "While streaming" counts the first save of the empty answer and every checkpoint; the final save follows the last checkpoint by less than a second by design (the trailing write).`,
  );
  await emitSection(section);
}

await main();
