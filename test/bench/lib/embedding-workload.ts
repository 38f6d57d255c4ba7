import { EMBED_BATCH_SIZE } from '../../../src/workers/embedding/embed-chunks';
import type { Embedder } from '../../../src/core/ports';
import { createRandom, summarizeSamples, type Spread } from './stats';

/**
 * Bench 6's workload, shared by Node (onnxruntime-node) and the bench worker in Chromium (ONNX
 * Runtime WASM): the same chunks, embedded in the app's batches through the app's Embedder.
 */

export const EMBEDDING_MODEL_ID = 'carrel/minilm-shape';
/** Six batches of the app's 16: one pass takes seconds on an idle machine, minutes on a busy one. */
export const CHUNK_COUNT = 96;
/** Words per chunk: every word is one vocabulary token, plus [CLS], [SEP] and a few full stops. */
const WORDS_PER_CHUNK = 186;

/** Deterministic chunks of whole vocabulary words, ~200 tokens each. */
export function createEmbeddingCorpus(vocabularyWords: readonly string[]): string[] {
  const random = createRandom(6);
  return Array.from({ length: CHUNK_COUNT }, () => {
    const words: string[] = [];
    for (let index = 0; index < WORDS_PER_CHUNK; index++) {
      const word = vocabularyWords[Math.floor(random() * vocabularyWords.length)] as string;
      words.push(index % 15 === 14 ? `${word}.` : word);
    }
    return words.join(' ');
  });
}

export interface EmbeddingRun {
  /** Chunks per second of each pass over the corpus. */
  chunksPerSecond: Spread;
  /** The last pass's vectors, one per chunk, as plain arrays (they cross page.evaluate). */
  vectors: number[][];
}

/**
 * One untimed batch (session warm-up), then timed passes over every chunk: at least one, at
 * most `maxPasses`, no new pass once `budgetMs` went into timed passes.
 */
export async function measureEmbedding(
  embedder: Embedder,
  texts: readonly string[],
  { maxPasses, budgetMs }: { maxPasses: number; budgetMs: number },
): Promise<EmbeddingRun> {
  const signal = new AbortController().signal;
  await embedder.embed(texts.slice(0, EMBED_BATCH_SIZE), 'passage', signal);
  const samples: number[] = [];
  let vectors: Float32Array[] = [];
  let spentMs = 0;
  while (samples.length < maxPasses && (samples.length === 0 || spentMs < budgetMs)) {
    vectors = [];
    const start = performance.now();
    for (let offset = 0; offset < texts.length; offset += EMBED_BATCH_SIZE) {
      const batch = texts.slice(offset, offset + EMBED_BATCH_SIZE);
      vectors.push(...(await embedder.embed(batch, 'passage', signal)));
    }
    const elapsedMs = performance.now() - start;
    spentMs += elapsedMs;
    samples.push(texts.length / (elapsedMs / 1000));
  }
  return {
    chunksPerSecond: summarizeSamples(samples),
    vectors: vectors.map((vector) => Array.from(vector)),
  };
}

/** Cosine similarity; the vectors are unit length, but the bench does not rely on it. */
export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let index = 0; index < a.length; index++) {
    const x = a[index] ?? 0;
    const y = b[index] ?? 0;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  return dot / Math.sqrt(normA * normB);
}
