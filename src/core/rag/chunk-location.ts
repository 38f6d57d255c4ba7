/**
 * A chunk's position, written into the stored chunk's `location` so the citation chip can open
 * the file viewer at the passage: "p. 3 · Setup › Install · chars 1200–1800". The text is read
 * by people (in the documents metadata) and parsed back by the viewer.
 */
export interface ChunkPosition {
  charStart: number;
  charEnd: number;
  page: number | null;
  headingPath: readonly string[];
}

const HEADING_SEPARATOR = ' › ';
const PART_SEPARATOR = ' · ';
const CHARS_PATTERN = /(?:^|· )chars (\d+)–(\d+)$/;
const PAGE_PATTERN = /^p\. (\d+)(?: ·|$)/;

export function formatChunkLocation(position: ChunkPosition): string {
  const parts: string[] = [];
  if (position.page !== null) parts.push(`p. ${position.page}`);
  if (position.headingPath.length > 0) parts.push(position.headingPath.join(HEADING_SEPARATOR));
  parts.push(`chars ${position.charStart}–${position.charEnd}`);
  return parts.join(PART_SEPARATOR);
}

/** Reads back a location written by formatChunkLocation; undefined for any other text. */
export function parseChunkLocation(location: string): ChunkPosition | undefined {
  const chars = CHARS_PATTERN.exec(location);
  if (chars === null) return undefined;
  const page = PAGE_PATTERN.exec(location);
  let middle = location.slice(0, chars.index);
  if (page !== null) middle = middle.slice(page[0].length);
  middle = middle.replace(/^ /, '').replace(/ ·$/, '').trim();
  return {
    charStart: Number(chars[1]),
    charEnd: Number(chars[2]),
    page: page === null ? null : Number(page[1]),
    headingPath: middle === '' ? [] : middle.split(HEADING_SEPARATOR),
  };
}
