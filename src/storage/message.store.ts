import { Dexie } from 'dexie';
import {
  asMessageId,
  chatMessageSimpleSchema,
  type ChatMessageSimple,
  type MessageId,
  type SessionId,
} from '../core/model';
import type { Clock, MessageBranches, MessageStore } from '../core/ports';
import { ROOT_PARENT_ID, type CarrelDb, type MessageRow } from './db';
import { StorageError } from './errors';
import { guardStorage } from './guard';
import {
  choosePosition,
  compareRows,
  readPosition,
  type LinePosition,
  type UnplacedMessageRow,
} from './message-lines';
import { bindLineTables, readLine, schedulePacking, type LineTables } from './message-packs';
import { fromMessageRow, toMessageRow } from './message-rows';
import { parseStored } from './parse-row';

export type DexieMessageStore = MessageStore & MessageBranches;

async function loadChildRows(
  db: CarrelDb,
  sessionId: string,
  parentId: string,
): Promise<MessageRow[]> {
  const rows = await db.messages
    .where('[sessionId+parentId]')
    .equals([sessionId, parentId])
    .toArray();
  return rows.sort(compareRows);
}

/** Whole buckets of lines read row by row during a walk: packed once the walk is over. */
type Unpacked = Map<string, number[]>;

/**
 * The rows of `row`'s line above it, shallowest first: packs and range reads
 * (`message-packs.ts`). `maxRows` bounds it to the rows just above `row`, for a walk that wants
 * only the end of a chain.
 */
function loadLineAbove(
  db: LineTables,
  row: MessageRow,
  maxRows: number,
  unpacked: Unpacked,
): Promise<MessageRow[]> {
  // A line head has nothing above it in its line. A row without a line (written around the
  // stores, e.g. by hand) is walked by its parent link alone.
  const position = readPosition(row);
  if (position === undefined || position.lineId === row.id || position.depth === 0 || maxRows <= 0)
    return Promise.resolve([]);
  const starts = unpacked.get(position.lineId) ?? [];
  unpacked.set(position.lineId, starts);
  return readLine(
    db,
    position.lineId,
    Math.max(0, position.depth - maxRows),
    position.depth,
    starts,
  );
}

/**
 * Walks parent links from the leaf, taking each line's part of the chain in a few reads
 * (`message-lines.ts`, `message-packs.ts`): a keyed read where the chain enters a line, packs
 * and a range read for the rest. Every row is still checked against the parent link it stands
 * for, so a line that disagrees with the links only costs more reads. Stops after `maxLength`
 * rows (the end of the chain); `isComplete` says whether the walk reached the root; `unpacked`
 * lists whole buckets it read row by row.
 */
async function loadChainRows(
  db: LineTables,
  leafId: string,
  maxLength = Number.POSITIVE_INFINITY,
): Promise<{ rows: MessageRow[]; isComplete: boolean; unpacked: Unpacked }> {
  const chain: MessageRow[] = [];
  const seen = new Set<string>();
  const unpacked: Unpacked = new Map();
  const append = (row: MessageRow) => {
    if (seen.has(row.id))
      throw new StorageError('invalid_data', `Message ${leafId} has a cycle in its parent links.`);
    seen.add(row.id);
    chain.push(row);
  };
  let id: string = leafId;
  while (id !== ROOT_PARENT_ID && chain.length < maxLength) {
    const row = await db.messages.get(id);
    if (row === undefined) {
      throw new StorageError(
        'not_found',
        `Message ${id} in the chain of ${leafId} no longer exists.`,
      );
    }
    append(row);
    id = row.parentId;
    const line = await loadLineAbove(db, row, maxLength - chain.length, unpacked);
    for (let index = line.length - 1; index >= 0; index--) {
      const above = line[index] as MessageRow;
      if (above.id !== id) break;
      append(above);
      id = above.parentId;
    }
  }
  return { rows: chain.reverse(), isComplete: id === ROOT_PARENT_ID, unpacked };
}

/**
 * Walks the chain in one read transaction, so it sees one consistent tree, then packs the whole
 * buckets it had to read row by row, in the background.
 */
async function readChain(
  db: CarrelDb,
  leafId: string,
  maxLength?: number,
): Promise<{ rows: MessageRow[]; isComplete: boolean }> {
  const walk = await db.transaction('r', [db.messages, db.messagePacks], (tx) =>
    loadChainRows(bindLineTables(tx, db.messagePackSize), leafId, maxLength),
  );
  packAfterWalk(db, walk.unpacked);
  return walk;
}

/** Packs, in the background, the whole buckets a walk read row by row. */
function packAfterWalk(db: CarrelDb, unpacked: Unpacked): void {
  for (const [lineId, starts] of unpacked)
    if (starts.length > 0) schedulePacking(db, lineId, starts);
}

/**
 * The rows from `leafId` up to (not including) `ancestorId`, oldest first, by keyed reads: a
 * turn's few new rows cost a few reads, not the line range reads of a whole chain. Null when the
 * walk meets the root, or takes more than `maxLength` rows, before it meets the ancestor.
 */
async function loadChainRowsBelow(
  db: CarrelDb,
  leafId: string,
  ancestorId: string,
  maxLength: number,
): Promise<MessageRow[] | null> {
  const rows: MessageRow[] = [];
  for (let id = leafId; id !== ancestorId;) {
    if (id === ROOT_PARENT_ID || rows.length >= maxLength) return null;
    const row = await db.messages.get(id);
    if (row === undefined)
      throw new StorageError(
        'not_found',
        `Message ${id} in the chain of ${leafId} no longer exists.`,
      );
    rows.push(row);
    id = row.parentId;
  }
  return rows.reverse();
}

/**
 * Where a message the session has not seen goes: its parent's line (`parentRow`, read by the
 * caller) if the next slot is free.
 */
async function placeNewRow(
  db: CarrelDb,
  row: UnplacedMessageRow,
  parentRow: MessageRow | undefined,
): Promise<LinePosition> {
  const parent = parentRow === undefined ? undefined : readPosition(parentRow);
  const isTaken =
    parent !== undefined &&
    (await db.messages
      .where('[lineId+depth]')
      .equals([parent.lineId, parent.depth + 1])
      .count()) > 0;
  return choosePosition(row.id, parent, () => isTaken);
}

/** The message and everything below it, breadth first; one indexed query per message. */
async function loadSubtreeIds(db: CarrelDb, root: MessageRow): Promise<string[]> {
  const ids: string[] = [];
  const queue: MessageRow[] = [root];
  for (let row = queue.shift(); row !== undefined; row = queue.shift()) {
    ids.push(row.id);
    queue.push(...(await loadChildRows(db, row.sessionId, row.id)));
  }
  return ids;
}

/** Follows the newest child from `parentId` down; null when the parent is the root and has none. */
async function findNewestLeaf(
  db: CarrelDb,
  sessionId: string,
  parentId: string,
): Promise<string | null> {
  let leafId: string | null = parentId === ROOT_PARENT_ID ? null : parentId;
  let children = await loadChildRows(db, sessionId, parentId);
  for (let newest = children.at(-1); newest !== undefined; newest = children.at(-1)) {
    leafId = newest.id;
    children = await loadChildRows(db, sessionId, newest.id);
  }
  return leafId;
}

export function createMessageStore(db: CarrelDb, clock: Clock): DexieMessageStore {
  return {
    /**
     * Saving a message the session has not seen makes it the current leaf: sending, editing
     * (a sibling of the edited message) and regenerating all show the new message. Updating an
     * existing one (streaming) leaves the visible branch alone.
     */
    put: (message) =>
      guardStorage(db, async () => {
        const row = toMessageRow(
          parseStored(chatMessageSimpleSchema, message, `Message ${message.id}`),
        );
        await db.transaction('rw', [db.messages, db.sessions], async () => {
          // Reads that do not depend on each other go out together, and so do the two writes:
          // each wait is a round trip to IndexedDB, and sync's change tracking adds to each write.
          const [session, stored, parentRow] = await Promise.all([
            db.sessions.get(message.sessionId),
            db.messages.get(message.id),
            row.parentId === ROOT_PARENT_ID ? undefined : db.messages.get(row.parentId),
          ]);
          if (session === undefined)
            throw new StorageError('not_found', `Session ${message.sessionId} no longer exists.`);
          const isNew = stored === undefined;
          if (!isNew && stored.parentId !== row.parentId) {
            throw new StorageError(
              'invalid_data',
              `Message ${message.id} cannot move to another parent; save an edit as a new message.`,
            );
          }
          const position =
            (isNew ? undefined : readPosition(stored)) ?? (await placeNewRow(db, row, parentRow));
          await Promise.all([
            db.messages.put({ ...row, ...position }),
            db.sessions.put({
              ...session,
              currentLeafId: isNew ? message.id : session.currentLeafId,
              version: session.version + 1,
              updatedAt: clock.now(),
            }),
          ]);
        });
      }),

    get: (id) =>
      guardStorage(db, async () => {
        const row = await db.messages.get(id);
        return row === undefined ? undefined : fromMessageRow(row);
      }),

    // One read-only transaction for the whole walk, so it sees one consistent tree.
    loadChain: (leafId) =>
      guardStorage(db, async () => (await readChain(db, leafId)).rows.map(fromMessageRow)),

    loadChainEnd: (leafId, maxLength) =>
      guardStorage(db, async () => {
        const { rows, isComplete } = await readChain(db, leafId, maxLength);
        return { messages: rows.map(fromMessageRow), isComplete };
      }),

    loadChainBelow: (leafId, ancestorId, maxLength) =>
      guardStorage(db, async () => {
        const rows = await db.transaction('r', db.messages, () =>
          loadChainRowsBelow(db, leafId, ancestorId ?? ROOT_PARENT_ID, maxLength),
        );
        return rows === null ? null : rows.map(fromMessageRow);
      }),

    children: (sessionId, parentId) =>
      guardStorage(db, async () =>
        (await loadChildRows(db, sessionId, parentId ?? ROOT_PARENT_ID)).map(fromMessageRow),
      ),

    listStreaming: () =>
      guardStorage(db, async () =>
        (await db.messages.where('status').equals('streaming').toArray()).map(fromMessageRow),
      ),

    siblings: (messageId) =>
      guardStorage(db, async () => {
        const row = await db.messages.get(messageId);
        if (row === undefined)
          throw new StorageError('not_found', `Message ${messageId} no longer exists.`);
        const ids = (await loadChildRows(db, row.sessionId, row.parentId)).map((sibling) =>
          asMessageId(sibling.id),
        );
        return { index: ids.indexOf(messageId), count: ids.length, ids };
      }),

    forkedParents: (sessionId) =>
      guardStorage(db, async () => {
        // The index's keys alone, [sessionId, parentId] per message: no row is read.
        const keys = (await db.messages
          .where('[sessionId+parentId]')
          .between([sessionId, Dexie.minKey], [sessionId, Dexie.maxKey])
          .keys()) as unknown as [string, string][];
        const children = new Map<string, number>();
        for (const [, parentId] of keys) children.set(parentId, (children.get(parentId) ?? 0) + 1);
        return [...children]
          .filter(([, count]) => count > 1)
          .map(([parentId]) => (parentId === ROOT_PARENT_ID ? null : asMessageId(parentId)));
      }),

    switchBranch: (messageId) =>
      guardStorage(db, () =>
        db.transaction('rw', [db.messages, db.sessions], async () => {
          const start = await db.messages.get(messageId);
          if (start === undefined)
            throw new StorageError('not_found', `Message ${messageId} no longer exists.`);
          let leaf = start;
          for (;;) {
            const children = await loadChildRows(db, leaf.sessionId, leaf.id);
            const newest = children[children.length - 1];
            if (newest === undefined) break;
            leaf = newest;
          }
          const session = await db.sessions.get(start.sessionId);
          if (session === undefined)
            throw new StorageError('not_found', `Session ${start.sessionId} no longer exists.`);
          const leafId: MessageId = asMessageId(leaf.id);
          await db.sessions.put({
            ...session,
            currentLeafId: leafId,
            version: session.version + 1,
            updatedAt: clock.now(),
          });
          return leafId;
        }),
      ),

    deleteBranch: (messageId) =>
      guardStorage(db, () =>
        db.transaction('rw', [db.messages, db.sessions], async () => {
          const target = await db.messages.get(messageId);
          if (target === undefined)
            throw new StorageError('not_found', `Message ${messageId} no longer exists.`);
          const session = await db.sessions.get(target.sessionId);
          if (session === undefined)
            throw new StorageError('not_found', `Session ${target.sessionId} no longer exists.`);
          const deletedIds = await loadSubtreeIds(db, target);
          await db.messages.bulkDelete(deletedIds);
          // Only a deleted leaf moves: deleting a branch the user is not looking at keeps the view.
          const isLeafDeleted =
            session.currentLeafId !== null && deletedIds.includes(session.currentLeafId);
          const leafId = isLeafDeleted
            ? await findNewestLeaf(db, target.sessionId, target.parentId)
            : session.currentLeafId;
          await db.sessions.put({
            ...session,
            currentLeafId: leafId === null ? null : asMessageId(leafId),
            version: session.version + 1,
            updatedAt: clock.now(),
          });
          return leafId === null ? null : asMessageId(leafId);
        }),
      ),

    loadVisibleChain: (sessionId: SessionId) =>
      guardStorage(db, async (): Promise<ChatMessageSimple[]> => {
        const walk = await db.transaction(
          'r',
          [db.sessions, db.messages, db.messagePacks],
          async (tx) => {
            const session = await db.sessions.get(sessionId);
            if (session === undefined)
              throw new StorageError('not_found', `Session ${sessionId} no longer exists.`);
            return session.currentLeafId === null
              ? undefined
              : await loadChainRows(bindLineTables(tx, db.messagePackSize), session.currentLeafId);
          },
        );
        if (walk === undefined) return [];
        packAfterWalk(db, walk.unpacked);
        return walk.rows.map(fromMessageRow);
      }),
  };
}
