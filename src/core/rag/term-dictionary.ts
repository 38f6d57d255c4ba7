/**
 * The keyword index's term dictionary: exact, prefix and fuzzy (Levenshtein) lookups over the
 * distinct terms of a project, built once with the index.
 *
 * The terms are sorted by UTF-16 code units. Prefix lookups are a binary search in that list
 * (the terms starting with a prefix are one contiguous run). Fuzzy lookups walk a trie built
 * from the same list and laid out flat in depth-first order: per node one code unit, its depth,
 * the index just past its subtree, the term ending there, and the shortest and longest term
 * below it. The walk fills one row of the edit matrix per node (only the band of `maxDistance`
 * around the diagonal), and skips a whole subtree, by jumping to its end, once the row's
 * smallest value passes `maxDistance` or no term below has a length within reach.
 *
 * It is the search MiniSearch's radix tree does (the same distances: insert, delete or replace
 * one UTF-16 code unit), over typed arrays instead of Maps of strings: no allocation per node,
 * no string built per step, and the length bounds cut subtrees the tree walks into. MiniSearch's
 * walk took most of a keyword query's time.
 */
import type { FlatTrie } from '../ports';

export interface TermDictionary {
  readonly size: number;
  /** The id of `term`, if the dictionary holds it. */
  get(term: string): number | undefined;
  /** Calls `visit` for each term that starts with `prefix` (itself included), in sorted order. */
  forEachWithPrefix(prefix: string, visit: (term: string, termId: number) => void): void;
  /** Calls `visit` for each term within `maxDistance` edits of `term` (itself included). */
  forEachWithin(
    term: string,
    maxDistance: number,
    visit: (term: string, termId: number, distance: number) => void,
  ): void;
  /** The sorted order and the trie, to store and restore without sorting again. */
  exportLayout(): TermDictionaryLayout;
}

/** What sorting the terms and building their trie gives (the arrays are the dictionary's own). */
export interface TermDictionaryLayout {
  /** Term ids in sorted order. */
  sortedIds: Int32Array;
  trie: FlatTrie;
}

/**
 * `terms[id]` is the term with that id; ids are the positions in the list. With `layout` (from
 * `exportLayout` of a dictionary over the same terms) nothing is sorted or built; a layout that
 * does not fit the terms throws.
 */
export function createTermDictionary(
  terms: readonly string[],
  layout?: TermDictionaryLayout,
): TermDictionary {
  const ids = new Map<string, number>();
  terms.forEach((term, id) => {
    if (ids.has(term)) throw new Error('Term dictionary: duplicate term');
    ids.set(term, id);
  });
  if (layout !== undefined) checkLayout(terms, layout);
  const sortedIds =
    layout?.sortedIds ??
    Int32Array.from(terms.keys()).sort((a, b) =>
      compareUnits(terms[a] as string, terms[b] as string),
    );
  const trie = layout?.trie ?? buildFlatTrie(terms, sortedIds);
  // The edit matrix of the current fuzzy lookup, one row per trie depth; grown, never shrunk.
  let matrix = new Int32Array(0);

  function lowerBound(prefix: string): number {
    let low = 0;
    let high = sortedIds.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareUnits(terms[sortedIds[middle] as number] as string, prefix) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  return {
    size: terms.length,
    exportLayout: () => ({ sortedIds, trie }),
    get: (term) => ids.get(term),
    forEachWithPrefix(prefix, visit) {
      for (let at = lowerBound(prefix); at < sortedIds.length; at++) {
        const termId = sortedIds[at] as number;
        const term = terms[termId] as string;
        if (!term.startsWith(prefix)) break;
        visit(term, termId);
      }
    },
    forEachWithin(term, maxDistance, visit) {
      const length = term.length;
      const deepest = length + maxDistance;
      const shortest = length - maxDistance;
      // Only the band of cells within `maxDistance` of the diagonal is kept, one sentinel on
      // each side: cell (depth, column) is at depth × band + column − depth + maxDistance + 1.
      // Memory is linear in the query's length, however long a pasted token is.
      const band = 2 * maxDistance + 3;
      const shift = maxDistance + 1;
      const cells = (deepest + 1) * band;
      if (matrix.length < cells) matrix = new Int32Array(cells);
      // Cells outside the band are never written and read as "too far".
      matrix.fill(maxDistance + 1, 0, cells);
      for (let column = 0; column <= Math.min(length, maxDistance); column++)
        matrix[column + shift] = column;
      const { units, depths, ends, termIdsAt, shortestBelow, longestBelow } = trie;
      let node = 0;
      while (node < units.length) {
        const depth = depths[node] as number;
        if (
          depth > deepest ||
          (longestBelow[node] as number) < shortest ||
          (shortestBelow[node] as number) > deepest
        ) {
          node = ends[node] as number;
          continue;
        }
        const unit = units[node] as number;
        // Row `depth` and the row above, each shifted so that a column indexes it directly.
        const row = depth * band - depth + shift;
        const above = row - band + 1;
        // Column 0: the whole path deleted.
        if (depth <= maxDistance) matrix[row] = depth;
        let rowBest = depth;
        const last = Math.min(length, depth + maxDistance);
        for (let column = Math.max(1, depth - maxDistance); column <= last; column++) {
          const replace =
            (matrix[above + column - 1] as number) + (term.charCodeAt(column - 1) === unit ? 0 : 1);
          const value = Math.min(
            replace,
            (matrix[above + column] as number) + 1,
            (matrix[row + column - 1] as number) + 1,
          );
          matrix[row + column] = value;
          if (value < rowBest) rowBest = value;
        }
        // The values in a row never fall in the rows below: nothing under this node is in reach.
        if (rowBest > maxDistance) {
          node = ends[node] as number;
          continue;
        }
        const termId = termIdsAt[node] as number;
        if (termId >= 0 && depth >= shortest) {
          const distance = matrix[row + length] as number;
          if (distance <= maxDistance) visit(terms[termId] as string, termId, distance);
        }
        node++;
      }
    },
  };
}

const INT32_MAX = 0x7fffffff;

/**
 * The layout lists every term once, in sorted order, and its trie's links stay within it and
 * only point forward, so lookups over it end and find only these terms.
 */
function checkLayout(terms: readonly string[], layout: TermDictionaryLayout): void {
  const { sortedIds, trie } = layout;
  const fail = (what: string): never => {
    throw new Error(`Term dictionary: a stored layout ${what}`);
  };
  if (!(sortedIds instanceof Int32Array) || sortedIds.length !== terms.length)
    fail('does not list every term');
  const seen = new Uint8Array(terms.length);
  let previous: string | null = null;
  for (const termId of sortedIds) {
    const term = terms[termId];
    if (term === undefined || seen[termId] === 1) fail('lists a term twice or one it lacks');
    seen[termId] = 1;
    if (previous !== null && compareUnits(previous, term as string) >= 0) fail('is out of order');
    previous = term as string;
  }
  const { units, depths, ends, termIdsAt, shortestBelow, longestBelow } = trie;
  const nodes = units instanceof Uint16Array ? units.length : fail('has no trie');
  for (const array of [depths, ends, termIdsAt, shortestBelow, longestBelow])
    if (!(array instanceof Int32Array) || array.length !== nodes)
      fail('has trie arrays that differ');
  for (let node = 0; node < nodes; node++) {
    const end = ends[node] as number;
    const termId = termIdsAt[node] as number;
    if (end <= node || end > nodes || (depths[node] as number) < 1)
      fail('has a trie link out of place');
    if (termId < -1 || termId >= terms.length) fail('names a term it lacks');
  }
}

/** Builds the trie from the terms in sorted order: each term adds the nodes past its common prefix with the previous one. */
function buildFlatTrie(terms: readonly string[], sortedIds: Int32Array): FlatTrie {
  const units: number[] = [];
  const depths: number[] = [];
  const ends: number[] = [];
  const termIdsAt: number[] = [];
  const shortestBelow: number[] = [];
  const longestBelow: number[] = [];
  // The nodes on the path to the current term: path[k] is at depth k + 1.
  const path: number[] = [];
  const close = (): void => {
    const node = path.pop() as number;
    ends[node] = units.length;
    const parent = path[path.length - 1];
    if (parent === undefined) return;
    shortestBelow[parent] = Math.min(
      shortestBelow[parent] as number,
      shortestBelow[node] as number,
    );
    longestBelow[parent] = Math.max(longestBelow[parent] as number, longestBelow[node] as number);
  };
  let previous = '';
  for (const termId of sortedIds) {
    const term = terms[termId] as string;
    if (term.length === 0) continue;
    let common = 0;
    const most = Math.min(term.length, previous.length);
    while (common < most && term.charCodeAt(common) === previous.charCodeAt(common)) common++;
    while (path.length > common) close();
    for (let at = common; at < term.length; at++) {
      path.push(units.length);
      units.push(term.charCodeAt(at));
      depths.push(at + 1);
      ends.push(0);
      termIdsAt.push(-1);
      shortestBelow.push(INT32_MAX);
      longestBelow.push(0);
    }
    const node = path[path.length - 1] as number;
    termIdsAt[node] = termId;
    shortestBelow[node] = term.length;
    longestBelow[node] = term.length;
    previous = term;
  }
  while (path.length > 0) close();
  return {
    units: Uint16Array.from(units),
    depths: Int32Array.from(depths),
    ends: Int32Array.from(ends),
    termIdsAt: Int32Array.from(termIdsAt),
    shortestBelow: Int32Array.from(shortestBelow),
    longestBelow: Int32Array.from(longestBelow),
  };
}

function compareUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
