import { z } from 'zod';
import { READ_FILE_TOOL_NAME } from '../../context';
import { asFileId, type ProjectId } from '../../model';
import type { PageSpan, ProjectFileReader, ReadableFile } from '../../ports';
import { formatChunkLocation, parseChunkLocation } from '../../rag';
import type { Tool, ToolOutput } from './tool';

/** About 2,000 tokens of prose: enough context around a hit without flooding the window. */
export const READ_WINDOW_CHARS = 8000;

const readFileInputSchema = z.object({
  file_id: z
    .string()
    .trim()
    .min(1)
    .describe('The id of the file (from a search result or the file list).'),
  location: z
    .string()
    .optional()
    .describe(
      'Where to read: the location of a search result, e.g. "p. 3 · chars 1200–1800". The text around it is returned.',
    ),
  page: z.number().int().min(1).optional().describe('A PDF page to read from its start.'),
  start_char: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Continue reading from this character offset.'),
});
export type ReadFileInput = z.infer<typeof readFileInputSchema>;

/**
 * Reads a window of a file's extracted text: around a search hit, from a page, or from an
 * offset. The window comes back as a document so it can be cited like a search result.
 */
export function createReadFileTool(deps: {
  projectId: ProjectId | null;
  reader: ProjectFileReader;
}): Tool<ReadFileInput> {
  return {
    name: READ_FILE_TOOL_NAME,
    description: `Reads a file's text: around a search result's location, from a PDF page, or from a character offset (about ${READ_WINDOW_CHARS} characters at a time).`,
    usage:
      'Use read_file to read more around a search result, to continue where a previous read stopped, or to read again a file that is no longer in your context.',
    isSearch: false,
    inputSchema: readFileInputSchema,
    async execute(input) {
      const file = await deps.reader.read(asFileId(input.file_id));
      // A file of another project is as good as absent: never leak across projects.
      if (file === undefined || (file.projectId !== null && file.projectId !== deps.projectId)) {
        return textError(
          `There is no file with id "${input.file_id}" here. Use the ids from the file list or from search results.`,
        );
      }
      if (file.status !== 'ready' || file.text === undefined || file.text === '')
        return textError(describeUnreadable(file));
      const [start, end] = chooseWindow(file.text, file.pageMap ?? [], input);
      const text = file.text;
      const page = pageAt(file.pageMap ?? [], start);
      const remaining =
        end < text.length ? ` Continue with start_char ${end}.` : ' This is the end of the file.';
      return {
        kind: 'documents',
        documents: [
          {
            title: file.name,
            metadata: `characters ${start}–${end} of ${text.length}.${remaining}`,
            contents: text.slice(start, end),
            fileId: file.id,
            location: formatChunkLocation({
              charStart: start,
              charEnd: end,
              page,
              headingPath: [],
            }),
          },
        ],
        emptyNotice: `The file "${file.name}" has no text in that range.`,
      };
    },
  };
}

function textError(content: string): ToolOutput {
  return { kind: 'text', content, isError: true };
}

function describeUnreadable(file: ReadableFile): string {
  switch (file.status) {
    case 'processing':
      return `"${file.name}" is still being processed; try again in a moment.`;
    case 'no_text':
      return `No text could be extracted from "${file.name}" (it may be a scan or empty).`;
    case 'error':
      return `"${file.name}" could not be read${file.error ? `: ${file.error}` : ''}.`;
    case 'ready':
      return `"${file.name}" is empty.`;
  }
}

function pageAt(pageMap: readonly PageSpan[], offset: number): number | null {
  let page: number | null = null;
  for (const span of pageMap) if (span.offset <= offset) page = span.page;
  return page;
}

/** The character window to return, snapped to whitespace so words are never cut. */
function chooseWindow(
  text: string,
  pageMap: readonly PageSpan[],
  input: ReadFileInput,
): [number, number] {
  let start = 0;
  const position = input.location === undefined ? undefined : parseChunkLocation(input.location);
  if (input.start_char !== undefined) {
    start = Math.min(input.start_char, text.length);
  } else if (input.page !== undefined) {
    start = pageMap.find((span) => span.page === input.page)?.offset ?? 0;
  } else if (position !== undefined) {
    const center = Math.floor((position.charStart + Math.min(position.charEnd, text.length)) / 2);
    start = Math.max(0, Math.min(center - READ_WINDOW_CHARS / 2, text.length - READ_WINDOW_CHARS));
    start = snapBack(text, start);
  }
  let end = Math.min(text.length, start + READ_WINDOW_CHARS);
  if (end < text.length) {
    const lastSpace = text.lastIndexOf(' ', end);
    const lastBreak = text.lastIndexOf('\n', end);
    const cut = Math.max(lastSpace, lastBreak);
    if (cut > start) end = cut;
  }
  return [start, end];
}

function snapBack(text: string, offset: number): number {
  if (offset <= 0) return 0;
  const previous = Math.max(text.lastIndexOf('\n', offset), text.lastIndexOf(' ', offset));
  return previous < 0 ? 0 : previous + 1;
}
