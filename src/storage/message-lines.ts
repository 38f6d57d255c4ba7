/**
 * Lines: how a chain of 10,000 messages loads in a few range reads instead of 10,000 keyed
 * reads (one IndexedDB round trip each).
 *
 * Every message row carries `lineId` and `depth` (its distance from the root). A message
 * continues its parent's line when no other child of the parent holds the next slot of that
 * line; otherwise (a regenerated answer, an edited question, a root) it starts a line of its
 * own, named by its id. Each line is therefore a path down the tree, and the part of a chain
 * that lies in one line is a single `[lineId+depth]` range. A chain crosses one line per fork it
 * took, so loading it costs about two reads per fork, whatever its length.
 *
 * Lines only speed the walk up: the walk still checks every parent link, so a row whose line is
 * wrong costs a keyed read, never a wrong chain.
 */
import type { Table } from 'dexie';
import { compareByCreation } from '../util/compare';
import { ROOT_PARENT_ID, type MessageRow } from './message-row';

/** The one table line placement reads. */
type MessageTable = { messages: Table<MessageRow, string> };

export interface LinePosition {
  lineId: string;
  depth: number;
}

/** A row as `toMessageRow` builds it, before it has a place in a line. */
export type UnplacedMessageRow = Omit<MessageRow, keyof LinePosition>;

export type TreeLinks = Pick<MessageRow, 'id' | 'parentId' | 'createdAt'>;

/** Oldest first; ids break ties so siblings created in the same millisecond keep an order. */
export function compareRows(
  a: Pick<TreeLinks, 'id' | 'createdAt'>,
  b: Pick<TreeLinks, 'id' | 'createdAt'>,
): number {
  return compareByCreation(a, b);
}

/** The row's place, if it has a readable one (rows written around the stores may not). */
export function readPosition(row: Partial<LinePosition>): LinePosition | undefined {
  return typeof row.lineId === 'string' && Number.isInteger(row.depth) && (row.depth ?? -1) >= 0
    ? { lineId: row.lineId, depth: row.depth as number }
    : undefined;
}

/**
 * Where a new message goes. `parent` is undefined for a root, or for a message whose parent is
 * missing (the walk then stops there with not_found, as it always did).
 */
export function choosePosition(
  id: string,
  parent: LinePosition | undefined,
  isSlotTaken: (lineId: string, depth: number) => boolean,
): LinePosition {
  if (parent === undefined) return { lineId: id, depth: 0 };
  const depth = parent.depth + 1;
  return { lineId: isSlotTaken(parent.lineId, depth) ? id : parent.lineId, depth };
}

function slotKey(lineId: string, depth: number): string {
  return `${depth}:${lineId}`;
}

/**
 * Places a batch of rows (an import, or a whole session during a schema upgrade) among the rows
 * of the same session that are already stored. A row that is already stored under the same
 * parent keeps its place; every other row is placed parents first, older siblings first, so a
 * batch placed at once gets the lines it would have got message by message. Rows caught in a
 * parent cycle each get a line of their own (reading them then reports the cycle).
 */
export function placeRows<Row extends TreeLinks>(
  stored: readonly (TreeLinks & Partial<LinePosition>)[],
  rows: readonly Row[],
): (Row & LinePosition)[] {
  const incoming = new Map(rows.map((row) => [row.id, row]));
  const positions = new Map<string, LinePosition>();
  const taken = new Set<string>();
  const kept = new Map<string, LinePosition>();
  for (const row of stored) {
    const replacement = incoming.get(row.id);
    const position = readPosition(row);
    // A row that moves to another parent gives its slot up; every other stored row keeps it.
    if (
      position === undefined ||
      (replacement !== undefined && replacement.parentId !== row.parentId)
    )
      continue;
    taken.add(slotKey(position.lineId, position.depth));
    if (replacement === undefined) positions.set(row.id, position);
    else kept.set(row.id, position);
  }

  const children = new Map<string, Row[]>();
  const starts: Row[] = [];
  for (const row of rows) {
    if (incoming.has(row.parentId)) {
      const siblings = children.get(row.parentId);
      if (siblings === undefined) children.set(row.parentId, [row]);
      else siblings.push(row);
    } else {
      starts.push(row);
    }
  }

  /** `parent` is undefined for roots (`ROOT_PARENT_ID` is no message's id) and orphans. */
  const place = (row: Row, parent: LinePosition | undefined): void => {
    const position =
      kept.get(row.id) ??
      choosePosition(row.id, parent, (lineId, depth) => taken.has(slotKey(lineId, depth)));
    positions.set(row.id, position);
    taken.add(slotKey(position.lineId, position.depth));
  };

  // Depth first over an explicit stack: a 10,000-message chain must not overflow the call stack.
  const stack = [...starts].sort(compareRows).reverse();
  for (let row = stack.pop(); row !== undefined; row = stack.pop()) {
    place(row, positions.get(row.parentId));
    const below = children.get(row.id);
    if (below !== undefined) stack.push(...below.sort(compareRows).reverse());
  }
  for (const row of rows) if (!positions.has(row.id)) place(row, undefined);

  return rows.map((row) => ({ ...row, ...(positions.get(row.id) as LinePosition) }));
}

/**
 * Gives imported rows their places among the stored messages of their sessions. Call it inside
 * the transaction that writes the rows, so no other write can take a slot in between.
 */
export async function placeImportedRows(
  db: MessageTable,
  rows: readonly UnplacedMessageRow[],
): Promise<MessageRow[]> {
  const sessionIds = [...new Set(rows.map((row) => row.sessionId))];
  const stored = await db.messages.where('sessionId').anyOf(sessionIds).toArray();
  return placeRows(stored, rows);
}

/**
 * The first chain of parent links that leads back to where it started, or undefined. Imported
 * links (`incoming`, message id to parent id, null for a root) are followed first, stored rows
 * for the rest, so a cycle that closes through a message already here is found too. Each
 * message is walked once.
 */
export async function findParentCycle(
  incoming: ReadonlyMap<string, string | null>,
  readStoredParentId: (id: string) => Promise<string | null | undefined>,
): Promise<string[] | undefined> {
  const isAcyclic = new Set<string>();
  for (const start of incoming.keys()) {
    const path: string[] = [];
    const onPath = new Set<string>();
    let current: string | null | undefined = start;
    while (current !== null && current !== undefined && !isAcyclic.has(current)) {
      if (onPath.has(current)) return path.slice(path.indexOf(current));
      path.push(current);
      onPath.add(current);
      current = incoming.has(current) ? incoming.get(current) : await readStoredParentId(current);
    }
    for (const id of path) isAcyclic.add(id);
  }
  return undefined;
}

/** `findParentCycle` over imported messages (id to parent id) and the rows already stored. */
export function findImportedParentCycle(
  db: MessageTable,
  incoming: ReadonlyMap<string, string | null>,
): Promise<string[] | undefined> {
  return findParentCycle(incoming, async (id) => {
    const row = await db.messages.get(id);
    return row === undefined || row.parentId === ROOT_PARENT_ID ? null : row.parentId;
  });
}

/** A cycle as an import's error names it: a chat whose chain leads back on itself is unreadable. */
export function describeCycle(cycle: readonly string[]): string {
  return `the parent links of messages ${cycle.map((id) => `"${id}"`).join(' → ')} form a cycle.`;
}
