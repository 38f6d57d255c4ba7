/**
 * A lazy import that hands back the same promise every time, so a view over a chunk that has
 * already loaded shows its content at once. A failed load is forgotten, so the next call (the
 * next visit to that screen) tries again.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | null = null;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = null;
      throw error;
    });
    return loading;
  };
}
