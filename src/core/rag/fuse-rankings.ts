import type { RankedId } from './bm25-index';

/** The usual RRF constant: damps the difference between the very first ranks. */
export const RRF_K = 60;

/**
 * Reciprocal rank fusion: each list adds 1 / (k + rank) to an id, so lists with incomparable
 * scores (BM25, cosine) combine by rank alone. Ties keep the order of first appearance.
 */
export function fuseRankings(rankings: ReadonlyArray<readonly RankedId[]>, k = RRF_K): RankedId[] {
  const fused = new Map<string, RankedId>();
  for (const ranking of rankings) {
    ranking.forEach((entry, index) => {
      const score = 1 / (k + index + 1);
      const seen = fused.get(entry.id);
      if (seen === undefined) fused.set(entry.id, { id: entry.id, score, row: entry.row });
      else seen.score += score;
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score);
}
