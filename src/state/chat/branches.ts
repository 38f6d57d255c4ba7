import type { MessageId } from '../../core/model';
import type { SiblingPosition } from '../../core/ports';

export type { SiblingPosition };

/** The sibling `offset` steps away, or null at either end (the switcher does not wrap). */
export function pickSibling(position: SiblingPosition, offset: -1 | 1): MessageId | null {
  const next = position.index + offset;
  if (position.index < 0 || next < 0 || next >= position.ids.length) return null;
  return position.ids[next] ?? null;
}

/** "2/3": the switcher's label, 1-based. */
export function formatSiblingLabel(position: SiblingPosition): string {
  return `${String(position.index + 1)}/${String(position.count)}`;
}
