import type { Block, PartEnv } from '../parts/part';
import type { ContextMessage } from '../types';

/** The read-file tool's name; the forgotten-files note points to it when it is offered. */
export const READ_FILE_TOOL_NAME = 'read_file';

export function describeSkipped(count: number): string {
  return `[Skipped ${count} earlier ${count === 1 ? 'message' : 'messages'} of this conversation.]`;
}

export function describeForgottenFiles(
  files: ReadonlyArray<{ fileId: string; name: string }>,
  canReadFiles: boolean,
): string {
  const list = files.map((file) => `"${file.name}" (id ${file.fileId})`).join(', ');
  const howToRead = canReadFiles
    ? `Call the ${READ_FILE_TOOL_NAME} tool with a file's id to read it again.`
    : 'If you need one of them, ask the user to attach it again.';
  return `Files the user attached earlier in this conversation are no longer in your context: ${list}. ${howToRead}`;
}

/** Markers to insert before a block index: where history was cut, say so (HOUSE-STYLE habit 3). */
export interface PlacedMarkers {
  beforeIndex: number;
  messages: ContextMessage[];
}

/**
 * One `skipped` marker per run of dropped conversation blocks, and after the first one a single
 * `forgotten_files` note listing every dropped point-in-time file.
 */
export function placeMarkers(
  blocks: readonly Block[],
  kept: readonly boolean[],
  env: PartEnv,
): PlacedMarkers[] {
  const placed: PlacedMarkers[] = [];
  const forgotten: Array<{ fileId: string; name: string }> = [];
  let runStart = -1;
  let runCount = 0;
  const closeRun = (): void => {
    if (runStart < 0) return;
    const text = describeSkipped(runCount);
    placed.push({
      beforeIndex: runStart,
      messages: [
        {
          kind: 'skipped',
          tokens: env.meter.priceMessage(env.meter.countText(text)),
          message: { role: 'user', content: text },
        },
      ],
    });
    runStart = -1;
    runCount = 0;
  };
  blocks.forEach((block, index) => {
    if (!block.isConversation) return;
    if (kept[index] === true) {
      closeRun();
      return;
    }
    if (runStart < 0) runStart = index;
    runCount += block.messages.length;
    forgotten.push(...block.files);
  });
  closeRun();
  const first = placed[0];
  if (first !== undefined && forgotten.length > 0) {
    const canReadFiles = env.input.tools.some((tool) => tool.name === READ_FILE_TOOL_NAME);
    const text = describeForgottenFiles(forgotten, canReadFiles);
    first.messages.push({
      kind: 'forgotten_files',
      tokens: env.meter.priceMessage(env.meter.countText(text)),
      message: { role: 'user', content: text },
    });
  }
  return placed;
}

export function sumMarkerTokens(placed: readonly PlacedMarkers[]): number {
  let total = 0;
  for (const entry of placed) for (const message of entry.messages) total += message.tokens;
  return total;
}
