/**
 * Bench 1: assembleContext over long sessions (mixed tool calls and files) against a 128k
 * window, next to a naive baseline that re-tokenizes every message before assembling.
 *
 *     npx tsx test/bench/context-assembly.bench.ts
 */
import { assembleContext } from '../../src/core/context';
import { createTokenCounter } from '../../src/core/tokens';
import {
  buildInput,
  buildSession,
  FILE_EVERY,
  recountMessage,
  TOOL_CALL_EVERY,
} from './lib/context-session';
import { createSection, emitSection } from './lib/report';
import { timeRepeatedly } from './lib/stats';

const SESSION_SIZES = [100, 1_000, 10_000] as const;
const TARGET_MS_AT_10K = 5;
const TARGET_SPEEDUP = 50;

async function main(): Promise<void> {
  const section = createSection('context-assembly', '1. Context assembly (128k window)');
  const tokenCounter = await createTokenCounter(['o200k_base']);
  for (const size of SESSION_SIZES) {
    const chain = buildSession(size);
    const input = buildInput(chain, { tokenCounter });
    const probe = assembleContext(input);
    if (!probe.ok) throw new Error(`assembly failed at ${size}: ${probe.error.message}`);
    const assembled = await timeRepeatedly(() => assembleContext(input), {
      warmups: 5,
      minRuns: 15,
      maxRuns: 200,
      budgetMs: 2_000,
    });
    const naive = await timeRepeatedly(
      () => assembleContext({ ...input, chain: chain.map(recountMessage) }),
      { warmups: 1, minRuns: 3, maxRuns: 20, budgetMs: 4_000 },
    );
    const isTargeted = size === 10_000;
    section.figures.push({
      name: `assembleContext, ${size.toLocaleString('en-US')} messages`,
      unit: 'ms',
      spread: assembled,
      baseline: { name: 're-tokenize every message, then assemble', unit: 'ms', spread: naive },
      ratioLabel: '× faster',
      ...(isTargeted
        ? {
            target: `< ${TARGET_MS_AT_10K} ms and ≥ ${TARGET_SPEEDUP}×`,
            isTargetMet:
              assembled.median < TARGET_MS_AT_10K &&
              naive.median / assembled.median >= TARGET_SPEEDUP,
          }
        : {}),
    });
    section.values.push({
      name: `messages sent of ${chain.length.toLocaleString('en-US')} (${size.toLocaleString('en-US')}-message session)`,
      value: probe.value.messages.length,
      unit: 'messages',
    });
  }
  section.notes.push(
    `Sessions alternate user and assistant messages; every ${TOOL_CALL_EVERY}th assistant turn calls a search tool (200-word result), every ${FILE_EVERY}th user turn attaches a code file. Token counts are stored on the messages (built once with the builders), as the app stores them.`,
  );
  section.notes.push(
    'Profile (node --cpu-prof, 10,000 messages): every call renders all history blocks (renderAssistantSteps, renderUserMessage, removeDisplayArtifacts: about a third of the time) before trimming, and the trim loop drops one old block per round, re-placing markers over all blocks and re-tokenizing the growing "forgotten files" note each round (several hundred rounds; about two thirds). Meeting < 5 ms needs history rendered lazily, newest first, only while it fits, and the forgotten-files note priced incrementally.',
  );
  await emitSection(section);
}

await main();
