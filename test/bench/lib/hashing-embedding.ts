import MiniSearch from 'minisearch';
import { normalizeTerm } from '../../../src/core/rag';

/**
 * A deterministic stand-in for an embedding model: each word (tokenised and stop-worded as the
 * keyword index does) and each of its character trigrams adds ±1 (trigrams ±0.5) to one of
 * `dimensions` coordinates picked by a hash (the "hashing trick"). Cosine similarity between
 * two such vectors measures shared words and shared word pieces ("insert" and "inserted" meet
 * through their trigrams), nothing more: it knows no synonyms and no meaning. It is here so
 * the vector and hybrid paths rank real text by something other than BM25, without a model
 * download; a real embedding model would rank by meaning and score differently.
 */

const tokenize = MiniSearch.getDefault('tokenize') as (text: string) => string[];
const TRIGRAM_WEIGHT = 0.5;

/** FNV-1a over UTF-16 code units. */
function hash(text: string): number {
  let value = 0x811c9dc5;
  for (let at = 0; at < text.length; at++) {
    value ^= text.charCodeAt(at);
    value = Math.imul(value, 0x01000193);
  }
  return value >>> 0;
}

function add(vector: Float32Array, feature: string, weight: number): void {
  const value = hash(feature);
  const slot = value % vector.length;
  // The top bit picks the sign, so unrelated features cancel out on average.
  vector[slot] = (vector[slot] as number) + (value >>> 31 === 1 ? -weight : weight);
}

export function embedByHashing(text: string, dimensions = 384): Float32Array {
  const vector = new Float32Array(dimensions);
  for (const token of tokenize(text)) {
    const term = normalizeTerm(token);
    if (term === null) continue;
    add(vector, `w:${term}`, 1);
    const padded = `<${term}>`;
    for (let at = 0; at + 3 <= padded.length; at++)
      add(vector, `t:${padded.slice(at, at + 3)}`, TRIGRAM_WEIGHT);
  }
  return vector;
}
