import type { Block, CarriedFile, PartEnv } from '../parts/part';
import type { ContextMessage } from '../types';

/** The read-file tool's name; the forgotten-files note points to it when it is offered. */
export const READ_FILE_TOOL_NAME = 'read_file';

export function describeSkipped(count: number): string {
  return `[Skipped ${count} earlier ${count === 1 ? 'message' : 'messages'} of this conversation.]`;
}

/**
 * The forgotten-files note names at most this many files, the newest: a long chat can have
 * forgotten hundreds, and a note listing them all would crowd out the conversation it is for.
 */
export const FORGOTTEN_FILES_NAMED = 20;

/**
 * The note for files no longer sent, oldest first: it names the newest
 * `FORGOTTEN_FILES_NAMED` of them with their ids and says how many earlier ones it leaves
 * unnamed (`files` may hold only the newest, with `unlisted` more before them).
 */
export function describeForgottenFiles(
  files: ReadonlyArray<{ fileId: string; name: string }>,
  canReadFiles: boolean,
  unlisted = 0,
): string {
  const named = files.slice(-FORGOTTEN_FILES_NAMED);
  const earlier = unlisted + files.length - named.length;
  const list = named.map((file) => `"${file.name}" (id ${file.fileId})`).join(', ');
  const howToRead = canReadFiles
    ? `Call the ${READ_FILE_TOOL_NAME} tool with a file's id to read it again.`
    : 'If you need one of them, ask the user to attach it again.';
  if (earlier === 0)
    return `Files the user attached earlier in this conversation are no longer in your context: ${list}. ${howToRead}`;
  return (
    `Files the user attached earlier in this conversation are no longer in your context: ${list}, ` +
    `and ${earlier} earlier ${earlier === 1 ? 'file' : 'files'} not named here. ${howToRead} ` +
    'For an earlier file, ask the user to attach it again.'
  );
}

/** Markers to insert before a block index: where history was cut, say so, for the model and the inspector. */
export interface PlacedMarkers {
  beforeIndex: number;
  messages: ContextMessage[];
}

/**
 * The markers for the blocks dropped so far, kept up to date as the trim drops more: one
 * `skipped` marker per run of dropped conversation blocks (S, CA and P do not break a run), and
 * after the first one a single `forgotten_files` note naming the newest dropped point-in-time
 * files and counting the rest.
 */
export interface MarkerLedger {
  /** Tokens of every marker, as they would be placed now. */
  tokens(): number;
  /** Records that the block at `index`, kept until now, is dropped. */
  drop(index: number): void;
  place(): PlacedMarkers[];
}

/**
 * The stored chat message each conversation block belongs to (its blocks are next to each
 * other: a user message's files then its text, an answer's steps), as a group number per block,
 * and how many blocks each group has. The marker counts chat messages, not the blocks or wire
 * messages they render to, so "Skipped 6" means six questions and answers of the chat are not
 * sent, whatever the provider's wire format (some merge a file with its question, some split a
 * step's tool results). A message of which any block is sent is not counted.
 */
function groupByMessage(blocks: readonly Block[]): { groupOf: number[]; sizes: number[] } {
  const groupOf = blocks.map(() => -1);
  const sizes: number[] = [];
  let previous: Block | undefined;
  blocks.forEach((block, index) => {
    if (!block.isConversation) return;
    const isSameMessage =
      previous !== undefined &&
      block.sourceId !== undefined &&
      previous.sourceId === block.sourceId;
    if (!isSameMessage) sizes.push(0);
    groupOf[index] = sizes.length - 1;
    sizes[sizes.length - 1] = (sizes.at(-1) ?? 0) + 1;
    previous = block;
  });
  return { groupOf, sizes };
}

/** A run of dropped conversation blocks: first and last block index, chat messages it held. */
interface Run {
  start: number;
  end: number;
  count: number;
}

/**
 * Dropping a block touches at most the runs next to it and, if it carries files, the note, so
 * each drop costs a few map operations (plus counting the new note) instead of a pass over
 * every block.
 */
export function createMarkerLedger(
  blocks: readonly Block[],
  kept: readonly boolean[],
  env: PartEnv,
): MarkerLedger {
  const runsByStart = new Map<number, Run>();
  const runsByEnd = new Map<number, Run>();
  /** Indexes of dropped blocks that carry files, ascending: the note lists their files in order. */
  const fileBlocks: number[] = [];
  const canReadFiles = env.input.tools.some((tool) => tool.name === READ_FILE_TOOL_NAME);
  const { groupOf, sizes } = groupByMessage(blocks);
  const droppedOfGroup = sizes.map(() => 0);
  /** Records a dropped block; 1 when it was the last sent block of its message, else 0. */
  const completeMessage = (index: number): number => {
    const group = groupOf[index] ?? -1;
    if (group < 0) return 0;
    droppedOfGroup[group] = (droppedOfGroup[group] ?? 0) + 1;
    if (droppedOfGroup[group] !== sizes[group]) return 0;
    // An elided stretch of history is a group of its own that stands for many chat messages.
    return blocks[index]?.elided?.messageCount ?? 1;
  };
  let skippedTokens = 0;
  let note: ContextMessage | null = null;
  let isNoteStale = true;

  const priceText = (text: string): number => env.meter.priceMessage(env.meter.countText(text));
  // A run of files alone (their question is sent) is told by the forgotten-files note only.
  const skippedCost = (run: Run): number =>
    run.count === 0 ? 0 : priceText(describeSkipped(run.count));
  const addRun = (run: Run): void => {
    runsByStart.set(run.start, run);
    runsByEnd.set(run.end, run);
    skippedTokens += skippedCost(run);
  };
  const removeRun = (run: Run): void => {
    runsByStart.delete(run.start);
    runsByEnd.delete(run.end);
    skippedTokens -= skippedCost(run);
  };
  const addFiles = (index: number, block: Block): void => {
    if (block.files.length === 0) return;
    let at = fileBlocks.length;
    while (at > 0 && (fileBlocks[at - 1] ?? 0) > index) at--;
    fileBlocks.splice(at, 0, index);
    isNoteStale = true;
  };
  /** The nearest conversation block before or after `index`, or -1. */
  const neighbour = (index: number, step: -1 | 1): number => {
    for (let at = index + step; at >= 0 && at < blocks.length; at += step)
      if (blocks[at]?.isConversation === true) return at;
    return -1;
  };
  const currentNote = (): ContextMessage | null => {
    if (!isNoteStale) return note;
    isNoteStale = false;
    // The newest files the note names, and how many earlier ones it only counts.
    const files: CarriedFile[] = [];
    let unlisted = 0;
    for (let at = fileBlocks.length - 1; at >= 0; at--) {
      const carried = blocks[fileBlocks[at] ?? -1]?.files ?? [];
      const room = Math.max(0, FORGOTTEN_FILES_NAMED - files.length);
      const taken = carried.slice(Math.max(0, carried.length - room));
      files.unshift(...taken);
      unlisted += carried.length - taken.length;
    }
    if (files.length === 0) {
      note = null;
      return note;
    }
    const text = describeForgottenFiles(files, canReadFiles, unlisted);
    note = {
      kind: 'forgotten_files',
      tokens: priceText(text),
      message: { role: 'user', content: text },
    };
    return note;
  };

  let open: Run | null = null;
  for (let index = 0; index < blocks.length; index++) {
    const block = blocks[index];
    if (block === undefined || !block.isConversation) continue;
    if (kept[index] === true) {
      if (open) addRun(open);
      open = null;
      continue;
    }
    if (open) {
      open.end = index;
      open.count += completeMessage(index);
    } else {
      open = { start: index, end: index, count: completeMessage(index) };
    }
    addFiles(index, block);
  }
  if (open) addRun(open);

  return {
    tokens: () => skippedTokens + (currentNote()?.tokens ?? 0),
    drop(index) {
      const block = blocks[index];
      if (block === undefined || !block.isConversation) return;
      const before = runsByEnd.get(neighbour(index, -1));
      const after = runsByStart.get(neighbour(index, 1));
      if (before) removeRun(before);
      if (after) removeRun(after);
      addRun({
        start: before?.start ?? index,
        end: after?.end ?? index,
        count: (before?.count ?? 0) + completeMessage(index) + (after?.count ?? 0),
      });
      addFiles(index, block);
    },
    place() {
      const runs = [...runsByStart.values()].sort((a, b) => a.start - b.start);
      const placed = runs.map((run): PlacedMarkers => {
        if (run.count === 0) return { beforeIndex: run.start, messages: [] };
        const text = describeSkipped(run.count);
        return {
          beforeIndex: run.start,
          messages: [
            { kind: 'skipped', tokens: priceText(text), message: { role: 'user', content: text } },
          ],
        };
      });
      const forgotten = currentNote();
      if (forgotten) placed[0]?.messages.push(forgotten);
      return placed.filter((markers) => markers.messages.length > 0);
    },
  };
}
