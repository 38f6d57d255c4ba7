/**
 * Where `previous` sits inside `next` when `next` is `previous` with items added in front of it,
 * after it, or both (older messages read, a turn saved): the number added in front, or -1 for
 * any other change (and for an empty `previous`). Compares references only, so a list of 10,000
 * takes microseconds.
 */
export function findGrownFrom<T>(previous: readonly T[], next: readonly T[]): number {
  if (previous.length === 0 || next.length < previous.length) return -1;
  const first = previous[0];
  const lastStart = next.length - previous.length;
  let start = -1;
  for (let index = 0; index <= lastStart; index++) {
    if (next[index] === first) {
      start = index;
      break;
    }
  }
  if (start < 0) return -1;
  for (let index = 1; index < previous.length; index++) if (next[start + index] !== previous[index]) return -1;
  return start;
}
