import type { ProjectSearchSnapshot } from '../../../src/core/ports';
import { openSearchSnapshot } from '../../../src/storage/search-snapshot-codec';

/**
 * A stored snapshot read whole, its postings too, as the store opens it and a search then reads
 * every term: what was written, to compare with. Null when it does not open or its postings do
 * not read.
 */
export async function readWholeSnapshot(stored: unknown): Promise<ProjectSearchSnapshot | null> {
  const opened = await openSearchSnapshot(stored);
  if (opened === null) return null;
  try {
    const [text, title] = await Promise.all(
      opened.keywords.fields.map(async (field) => ({
        ...field,
        postings: await field.postings.read(0, field.postings.length),
      })),
    );
    if (text === undefined || title === undefined) return null;
    return { ...opened, keywords: { ...opened.keywords, fields: [text, title] } };
  } catch {
    return null;
  }
}
