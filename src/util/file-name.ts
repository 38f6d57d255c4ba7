/**
 * Characters that reorder the text around them: embeddings, overrides and isolates
 * (U+202A–U+202E, U+2066–U+2069) and the invisible direction marks (U+200E, U+200F, U+061C).
 * In a file name they can make "photo‮gpj.exe" read as "photoexe.jpg".
 */
const BIDI_CONTROL_PATTERN = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;

/**
 * A file name as people may see it: every bidirectional control shown as a visible escape
 * ("[U+202E]"), so the name reads in stored order and cannot fake its extension. Show it inside
 * a `<bdi>` element so a right-to-left name does not reorder the text around it either.
 */
export function showFileName(name: string): string {
  return name.replace(
    BIDI_CONTROL_PATTERN,
    (char) => `[U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}]`,
  );
}
