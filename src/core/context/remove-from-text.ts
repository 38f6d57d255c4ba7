/**
 * What the app adds to an answer for display, removed before the answer goes back to the model:
 * the model must see `[1]`, not a link it never wrote.
 */

/** `[[1]](https://…)` or `[1](https://…)` → `[1]`. */
const CITATION_LINK_PATTERN = /\[\[(\d+)\]\]\([^)\s]*\)|\[(\d+)\]\([^)\s]*\)/g;

/** A follow-up suggestions block appended by the UI, from its marker to the end of the text. */
export const FOLLOW_UPS_MARKER = '<!-- follow-ups -->';
const NON_SPACE_PATTERN = /\S/;

export function removeDisplayArtifacts(text: string): string {
  const markerAt = text.indexOf(FOLLOW_UPS_MARKER);
  const withoutFollowUps = markerAt >= 0 ? text.slice(0, markerAt).trimEnd() : text;
  return withoutFollowUps.replace(
    CITATION_LINK_PATTERN,
    (_whole, doubled?: string, single?: string) => {
      return `[${doubled ?? single ?? ''}]`;
    },
  );
}

/**
 * True when removeDisplayArtifacts(text) would be empty, without building it: only an empty
 * text, or one that is nothing but follow-ups after leading white space, comes out empty (a
 * citation link always leaves its `[n]`). Lets the history be priced without stripping it.
 */
export function isOnlyDisplayArtifacts(text: string): boolean {
  if (text.length === 0) return true;
  // `\s` is the white space trimEnd removes; only the leading run is scanned.
  const start = text.search(NON_SPACE_PATTERN);
  return start >= 0 && text.startsWith(FOLLOW_UPS_MARKER, start);
}
