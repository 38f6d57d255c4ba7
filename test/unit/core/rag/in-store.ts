import type { OpenedProjectSnapshot, ProjectSearchSnapshot, StoredBytes } from '../../../../src/core/ports';

/**
 * Bytes kept apart as a store keeps them: each range read is recorded in `reads`, and a read
 * rejects with what `fail` returns, when it returns something.
 */
export function keepInStore(
  bytes: Uint8Array,
  reads: Array<[number, number]> = [],
  fail?: () => Error | null,
): StoredBytes {
  return {
    length: bytes.length,
    read: (start, end) => {
      const error = fail?.() ?? null;
      if (error !== null) return Promise.reject(error);
      reads.push([start, end]);
      return Promise.resolve(bytes.slice(start, end));
    },
  };
}

/** A snapshot opened as the store opens one: its keyword postings are read by range. */
export function openInStore(snapshot: ProjectSearchSnapshot): OpenedProjectSnapshot {
  const [text, title] = snapshot.keywords.fields;
  return {
    ...snapshot,
    keywords: {
      ...snapshot.keywords,
      fields: [
        { ...text, postings: keepInStore(text.postings) },
        { ...title, postings: keepInStore(title.postings) },
      ],
    },
  };
}
