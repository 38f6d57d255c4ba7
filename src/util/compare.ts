/**
 * Orders of stored rows, as IndexedDB lists them: keys compare by UTF-16 code unit, which is
 * what `<` does on strings.
 */

/** By id alone. */
export function compareIds(a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Oldest first; ids break ties between rows created in the same millisecond. */
export function compareByCreation(
  a: { id: string; createdAt: number },
  b: { id: string; createdAt: number },
): number {
  return a.createdAt - b.createdAt || compareIds(a, b);
}
