/**
 * Bench 1: assembleContext over long sessions (mixed tool calls and files) against a 128k
 * window, next to a naive baseline that re-tokenizes every message before assembling.
 *
 *     npx tsx test/bench/context-assembly.bench.ts
 */
import { availableParallelism, loadavg } from 'node:os';
import { assembleContext, type ContextInput } from '../../src/core/context';
import type { AssistantStep } from '../../src/core/model';
import { buildStep } from '../builders';
import type { TokenCounter } from '../../src/core/ports';
import { createTokenCounter } from '../../src/core/tokens';
import {
  buildInput,
  buildSession,
  FILE_EVERY,
  recountMessage,
  TOOL_CALL_EVERY,
} from './lib/context-session';
import { createSection, emitSection, type BenchSection } from './lib/report';
import { timeRepeatedly } from './lib/stats';

const SESSION_SIZES = [100, 1_000, 10_000] as const;
const TARGET_MS_AT_10K = 5;
const TARGET_SPEEDUP = 50;
/** Enough search results in the turn in progress to overflow the 128k window. */
const OVERFLOW_CALLS = 4;
const OVERFLOW_SOURCES = 40;

/**
 * The same counter behind a new object: the engine remembers counts per counter, so this is
 * what the first request after the worker starts costs (gpt-tokenizer's own caches stay warm).
 */
function withFreshMemo(counter: TokenCounter): TokenCounter {
  return { count: (text, encoding) => counter.count(text, encoding) };
}

async function main(): Promise<void> {
  const section = createSection('context-assembly', '1. Context assembly (128k window)');
  const loadAtStart = loadavg()[0] ?? 0;
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
    const sizeLabel = size.toLocaleString('en-US');
    section.figures.push({
      name: `assembleContext, ${sizeLabel} messages`,
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
    const cold = await timeRepeatedly(
      () => assembleContext({ ...input, tokenCounter: withFreshMemo(tokenCounter) }),
      { warmups: 2, minRuns: 10, maxRuns: 100, budgetMs: 2_000 },
    );
    section.figures.push({
      name: `first request after start (nothing counted yet), ${sizeLabel} messages`,
      unit: 'ms',
      spread: cold,
      baseline: { name: 're-tokenize every message, then assemble', unit: 'ms', spread: naive },
      ratioLabel: '× faster',
    });
    section.values.push({
      name: `messages sent of ${chain.length.toLocaleString('en-US')} (${size.toLocaleString('en-US')}-message session)`,
      value: probe.value.messages.length,
      unit: 'messages',
    });
  }
  await measureNewRules(section, tokenCounter);
  section.notes.push(
    "With the upload share (default half of the budget) the session's old code files keep their share and come back with their questions, so fewer but more scattered messages are sent (813 → 699 at 10,000) and the trim places more skipped markers. The first run with it was taken at a load average of 14–20 on 2 cores, with the baseline itself 4.5× slower than in the previous run: the 10,000-message figure went from 109× to 46× its baseline, so part of the slowdown is the share's extra passes and markers; not yet investigated. The reducer's own case (search results over the window) counts every kept source exactly, hence its ~200 ms under that load.",
  );
  section.notes.push(
    `Sessions alternate user and assistant messages; every ${TOOL_CALL_EVERY}th assistant turn calls a search tool (200-word result), every ${FILE_EVERY}th user turn attaches a code file. Token counts are stored on the messages (built once with the builders), as the app stores them.`,
  );
  section.notes.push(
    'Before: every call rendered all history blocks, then trimmed by re-placing the markers over all blocks and re-tokenizing the growing forgotten-files note each round: 46–273 ms at 10,000 messages. Now blocks are priced from stored counts and rendered only if sent (an old step is never stripped or parsed), the markers follow each dropped block in a ledger (a few map operations per drop, the note recounted only when a dropped block carries files), and counts of generated texts (file framings, markers, the note, the system prompt) are remembered per token counter across requests.',
  );
  section.notes.push(
    "Round 2 (9.9–10.6 ms at 10,000 messages before it, same machine and load): an older message's blocks are priced once and reused by every later request that prices the same way (a WeakMap on the message, checked against the shared pricing and the pin state), so a steady-state cycle allocates no history blocks; the dropped-message report (about 10,900 entries) is built only when read, which the agent loop never does; and a sent tool step is built without spreading its price (1.1 → 0.16 ms for the ~450 steps sent).",
  );
  section.notes.push(
    `This run started at a load average (1 min) of ${loadAtStart.toFixed(1)} on ${availableParallelism()} cores, so wall-clock medians include waiting for a core; the p5 column is closer to the work itself.`,
  );
  section.notes.push(
    'Round 3: the history is walked from the newest message back only as far as something could still be sent (until the messages behind it pass the input budget and the files behind it the upload share plus the largest message block; for last_turns until its own cut), and older stretches between pinned messages are one elided block with summed tokens, messages and files, taken from running sums that the next request reuses after checking the older chain by identity. The trim, its marker ledger and the shares now see ~1,320 blocks (the newest ~1,120 messages) instead of ~11,700 at 10,000 messages (48 under last_turns (20); ~2,660 under clear_tool_results with arguments, where files get the whole budget), the dropped-message report expands the elided blocks only when read, and the forgotten-files note names the newest 20 files and counts the rest (1,050 characters; ~500 files and ~18,000 characters before). More messages are sent (699 → 720) because the shorter note leaves room for them. A property test checks the result equals listing every block.',
  );
  section.notes.push(
    'Where the time goes now (10,000 messages, CPU profile): the walk over the ~1,120 newest messages and their blocks, the trim over ~1,320 blocks, rendering the ~720 messages sent, splitting the chain and checking the older part by identity (~9,000 comparisons), and the young-generation GC of what is rendered. The files behind the newest messages keep the walk long in this session (one code file every 10th question, ~930 tokens each): files must pass the upload share before nothing older can fit. The first request after start prices every message once (nothing remembered for a new counter) and fills the running sums.',
  );
  section.notes.push(
    "Round 4: clear_tool_results with arguments missed its target (20.7 ms at 10,000 messages): files got the whole budget and steps with calls counted as free in the walk (clearing can make a step a token dearer), so ~2,660 blocks were listed instead of ~1,320, and every listed tool step was priced again with its arguments cleared on every request. Now a step counts at the least it can cost cleared or not toward the messages' cut and at the most as the block the cut may fall on, so the walk stops where auto's does, and a cleared step is made once and reused while it clears the same calls. buffered, token_limited and the tail of head_and_tail stop the walk once the listed blocks alone pass their limit (head_and_tail lists its head first): ~200 blocks listed instead of ~11,700.",
  );
  section.notes.push(
    "Round 5: a CPU profile of clear_tool_results (a driver calling the same assembly on the same 10,000-message session) showed the history walk, not the clearing, taking the extra time: for each tool step it passed, the walk asked the shared token memo for the count of the cleared arguments (`{}`), and each read there moves the text to the memo's recent end (a delete and a set on a Map of every text counted so far). The count is now taken once per step block and kept with it, and a step cleared whole is reused with its reductions without going through its calls. Measured the same way before and after at loads of 17.8 and 23.8 on 2 cores: clear_tool_results p5 2.51 → 1.54 ms against the default strategy's 1.0 ms in both runs (2.5× → 1.5×); the wall-clock medians (16.5 and 25.3 ms) were set by the load, not the work (the default strategy's own median moved 2.3–2.7 ms, last_turns' 0.7–0.8 ms with p95s of 30–130 ms). The walk alone (collect of the history part, 1,500 calls in one process): 1.1 → 0.33–0.45 ms median, the default strategy's 0.2–0.4 ms. Both strategies interleaved in one process, CPU time per call: 1.21× → 1.14× the default strategy. The table is a third run, after the change, at load 29.5: p5 1.29 against 1.13 ms (1.14×), medians 15.6 and 6.05 ms; at such loads no wall-clock median says whether < 5 ms is met, so that still wants a run on a quiet machine.",
  );
  await emitSection(section);
}

/** Search results of the turn in progress that overflow the window: the reducer's worst case. */
function buildOverflowingTurn(): AssistantStep[] {
  const paragraph = 'The harbour ledger lists cargo, weather and crew for each day of the voyage. ';
  let number = 0;
  return Array.from({ length: OVERFLOW_CALLS }, (_, index) =>
    buildStep({
      toolCalls: [
        {
          id: `search-${index}`,
          name: 'search_web',
          arguments: { query: `ledger ${index}` },
          sources: Array.from({ length: OVERFLOW_SOURCES }, () => {
            number++;
            return { number, title: `Source ${number}`, contents: paragraph.repeat(60) };
          }),
        },
      ],
    }),
  );
}

/**
 * The rules added with the reducer, at 10,000 messages: the two new strategies, and a turn
 * whose search results do not fit (sources dropped, the rest sent), next to the same naive
 * baseline (re-tokenize every message, then assemble).
 */
async function measureNewRules(section: BenchSection, tokenCounter: TokenCounter): Promise<void> {
  const chain = buildSession(10_000);
  const base = buildInput(chain, { tokenCounter });
  const naive = await timeRepeatedly(
    () => assembleContext({ ...base, chain: chain.map(recountMessage) }),
    { warmups: 1, minRuns: 3, maxRuns: 20, budgetMs: 4_000 },
  );
  const variants: Array<{ name: string; input: ContextInput; hasTarget: boolean }> = [
    {
      name: 'last_turns (20), 10,000 messages',
      input: { ...base, historyStrategy: { kind: 'last_turns', turns: 20 } },
      hasTarget: true,
    },
    {
      name: 'clear_tool_results (past 50k, keep 5, arguments too), 10,000 messages',
      input: {
        ...base,
        historyStrategy: {
          kind: 'clear_tool_results',
          triggerTokens: 50_000,
          keep: 5,
          excludeTools: [],
          shouldClearArguments: true,
        },
      },
      hasTarget: true,
    },
    {
      name: 'buffered (200 messages), 10,000 messages',
      input: { ...base, historyStrategy: { kind: 'buffered', size: 200 } },
      hasTarget: true,
    },
    {
      name: 'token_limited (30k), 10,000 messages',
      input: { ...base, historyStrategy: { kind: 'token_limited', maxTokens: 30_000 } },
      hasTarget: true,
    },
    {
      name: 'head_and_tail (10 + 200 messages), 10,000 messages',
      input: { ...base, historyStrategy: { kind: 'head_and_tail', head: 10, tail: 200 } },
      hasTarget: true,
    },
    {
      name: `newest turn over budget (${OVERFLOW_CALLS} searches × ${OVERFLOW_SOURCES} sources reduced), 10,000 messages`,
      input: { ...base, turnSteps: buildOverflowingTurn(), hasSearchRunInTurn: true },
      hasTarget: false,
    },
  ];
  for (const variant of variants) {
    const probe = assembleContext(variant.input);
    if (!probe.ok) throw new Error(`${variant.name}: ${probe.error.message}`);
    const spread = await timeRepeatedly(() => assembleContext(variant.input), {
      warmups: 3,
      minRuns: 10,
      maxRuns: 100,
      budgetMs: 2_000,
    });
    section.figures.push({
      name: `assembleContext, ${variant.name}`,
      unit: 'ms',
      spread,
      baseline: { name: 're-tokenize every message, then assemble', unit: 'ms', spread: naive },
      ratioLabel: '× faster',
      ...(variant.hasTarget
        ? { target: `< ${TARGET_MS_AT_10K} ms`, isTargetMet: spread.median < TARGET_MS_AT_10K }
        : {}),
    });
    if (probe.value.reductions.length > 0)
      section.values.push({
        name: `tool results reduced or cleared (${variant.name})`,
        value: probe.value.reductions.length,
        unit: 'results',
      });
  }
}

await main();
