import type {
  ChatTemplateMessage,
  LocalGenerationRequest,
  LocalGenerationResult,
  WorkerResult,
} from '../../../src/workers/generation/generation.api';
import { createRandom } from './stats';

/**
 * Bench 9's workload, shared by Node (onnxruntime-node) and the bench worker in Chromium (ONNX
 * Runtime WASM): the same conversations, answered through the app's generation host (chat
 * template, key/value cache reuse, streaming, the stop flag), so both sides do the app's work.
 */

/** The CPU default's id: the host loads its 8-bit file (onnx/model_quantized.onnx). */
export const GENERATION_MODEL_ID = 'HuggingFaceTB/SmolLM2-360M-Instruct';
export const SHORT_PROMPT_TOKENS = 100;
export const LONG_PROMPT_TOKENS = 1_000;
/** Tokens each answer makes: the model never ends an answer on its own, so every run makes these. */
export const NEW_TOKENS = 40;
export const FOLLOW_UP_QUESTION = 'And what follows from that, in one short sentence?';

/** What the workload needs of the host: the generation worker's `generate`. */
export type Generate = (
  request: LocalGenerationRequest,
  stopFlag: Int32Array,
  onText: (text: string) => void,
) => Promise<WorkerResult<LocalGenerationResult>>;

/** One round: a fresh 100-token chat, a fresh 1,000-token chat, then a follow-up in the latter. */
export interface GenerationRound {
  short: ChatTemplateMessage[];
  long: ChatTemplateMessage[];
}

export interface GenerationPlan {
  warmUp: ChatTemplateMessage[];
  rounds: GenerationRound[];
}

export interface GenerationRun {
  /** The first call: loading the model files and starting the session, plus a 1-token answer. */
  loadMs: number;
  short: LocalGenerationResult[];
  long: LocalGenerationResult[];
  followUp: LocalGenerationResult[];
}

const WORDS = (
  'the of and to in is that for it as with was on be by at this from or have an are which ' +
  'not but had his they you were her she there been one all we their has would when who will ' +
  'more if out so said what up its about into than them can only other new some could time ' +
  'these two may then do first any my now such like our over man me even most made after also'
).split(' ');

/** Deterministic prose of `length` characters (the bench trims it to a token count). */
export function createProse(seed: number, length: number): string {
  const random = createRandom(seed);
  let text = '';
  while (text.length < length) {
    const word = WORDS[Math.floor(random() * WORDS.length)] as string;
    text += text.length === 0 ? word[0]?.toUpperCase() + word.slice(1) : ` ${word}`;
    if (random() < 0.08) text += '.';
  }
  return text.slice(0, length);
}

/**
 * A chat whose rendered prompt is exactly `tokens` long (as `countTokens` counts it). Each chat
 * opens with its own words, so no run reuses another's cached prefix beyond the template's first
 * few tokens.
 */
export function fitChat(
  seed: number,
  tokens: number,
  countTokens: (messages: ChatTemplateMessage[]) => number,
): ChatTemplateMessage[] {
  const build = (length: number): ChatTemplateMessage[] => [
    { role: 'system', content: `${createProse(seed * 7 + 1, 24)}. You are a helpful assistant.` },
    { role: 'user', content: createProse(seed * 7 + 2, length) },
  ];
  let length = Math.max(1, tokens - countTokens(build(1)));
  for (let attempt = 0; attempt < 50; attempt++) {
    const counted = countTokens(build(length));
    if (counted === tokens) return build(length);
    length = Math.max(1, length + (tokens - counted));
  }
  throw new Error(`No chat of exactly ${tokens} tokens found near ${length} characters`);
}

export function createGenerationPlan(
  rounds: number,
  countTokens: (messages: ChatTemplateMessage[]) => number,
): GenerationPlan {
  return {
    warmUp: [{ role: 'user', content: 'Hello.' }],
    rounds: Array.from({ length: rounds }, (_, index) => ({
      short: fitChat(10 + index, SHORT_PROMPT_TOKENS, countTokens),
      long: fitChat(100 + index, LONG_PROMPT_TOKENS, countTokens),
    })),
  };
}

/** The app's call: greedy, the answer streamed, the stop flag never set. */
async function answer(
  generate: Generate,
  modelId: string,
  sourceUrl: string,
  messages: ChatTemplateMessage[],
  maxNewTokens: number,
): Promise<{ result: LocalGenerationResult; text: string }> {
  let text = '';
  const outcome = await generate(
    { model: { modelId, sourceUrl }, messages, tools: [], maxNewTokens },
    new Int32Array(new SharedArrayBuffer(4)),
    (piece) => (text += piece),
  );
  if (!outcome.ok) throw new Error(`${outcome.error.code}: ${outcome.error.message}`);
  return { result: outcome.value, text };
}

/**
 * Loads the model with a one-token answer, then each round: the 100-token chat, the 1,000-token
 * chat, and a follow-up question in the latter (its prompt holds the first answer, so only what
 * follows the cached keys and values is read anew).
 */
export async function measureGeneration(
  generate: Generate,
  plan: GenerationPlan,
  sourceUrl: string,
): Promise<GenerationRun> {
  const run: GenerationRun = { loadMs: 0, short: [], long: [], followUp: [] };
  const loadStarted = performance.now();
  await answer(generate, GENERATION_MODEL_ID, sourceUrl, plan.warmUp, 1);
  run.loadMs = performance.now() - loadStarted;
  for (const round of plan.rounds) {
    run.short.push(
      (await answer(generate, GENERATION_MODEL_ID, sourceUrl, round.short, NEW_TOKENS)).result,
    );
    const first = await answer(generate, GENERATION_MODEL_ID, sourceUrl, round.long, NEW_TOKENS);
    run.long.push(first.result);
    const followUp = [
      ...round.long,
      { role: 'assistant', content: first.text },
      { role: 'user', content: FOLLOW_UP_QUESTION },
    ] satisfies ChatTemplateMessage[];
    run.followUp.push(
      (await answer(generate, GENERATION_MODEL_ID, sourceUrl, followUp, NEW_TOKENS)).result,
    );
  }
  return run;
}
