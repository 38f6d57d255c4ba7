import type { ProjectFile } from '../../model';
import { renderDocumentsMessage, type DocumentInput } from '../documents';
import { describeUnreadableFile } from '../render/render-user';
import { buildFixedBlock, type ContextPart } from './part';

export const PROJECT_LISTING_PREFIX =
  'This project has too many files to show them all. Search them with the project search tool and read one with the read-file tool. The files are:';

const BYTES_PER_KB = 1024;

function formatSize(sizeBytes: number): string {
  if (sizeBytes < BYTES_PER_KB) return `${sizeBytes} B`;
  if (sizeBytes < BYTES_PER_KB * BYTES_PER_KB) return `${Math.round(sizeBytes / BYTES_PER_KB)} KB`;
  return `${(sizeBytes / BYTES_PER_KB / BYTES_PER_KB).toFixed(1)} MB`;
}

function hasReadableText(file: ProjectFile): file is ProjectFile & { text: string } {
  return file.status === 'ready' && file.text !== undefined && file.text.length > 0;
}

/** Every project file as one documents message; stored counts for the texts, framing counted. */
function renderInline(files: readonly ProjectFile[]): {
  text: string;
  framing: string;
  storedTokens: number;
} {
  let storedTokens = 0;
  const docs: DocumentInput[] = [];
  const frames: DocumentInput[] = [];
  for (const file of files) {
    const contents = hasReadableText(file) ? file.text : describeUnreadableFile(file);
    if (hasReadableText(file)) storedTokens += file.tokenCount;
    docs.push({ title: file.name, metadata: file.mimeType, contents });
    frames.push({
      title: file.name,
      metadata: file.mimeType,
      contents: hasReadableText(file) ? '' : contents,
    });
  }
  return {
    text: renderDocumentsMessage(docs, 1),
    framing: renderDocumentsMessage(frames, 1),
    storedTokens,
  };
}

/**
 * P: inline, all project files as documents numbered from 1, placed after CA and before the
 * newest turn; in search mode, a short listing of what exists instead.
 */
export const projectFilesPart: ContextPart = {
  id: 'project_files',
  collect(env) {
    const project = env.input.project;
    if (project === null || project.files.length === 0 || env.projectMode === null)
      return { blocks: [], dropped: [] };
    if (env.projectMode === 'inline') {
      const rendered = renderInline(project.files);
      const tokens = env.meter.priceMessage(
        rendered.storedTokens + env.meter.countText(rendered.framing),
      );
      const block = buildFixedBlock(
        {
          kind: 'project_files',
          tokens,
          message: { role: 'user', content: rendered.text },
          label: 'inline',
        },
        'project_files',
      );
      return { blocks: [block], dropped: [] };
    }
    const listing = [
      PROJECT_LISTING_PREFIX,
      ...project.files.map(
        (file) => `- ${file.name} (${file.mimeType}, ${formatSize(file.sizeBytes)})`,
      ),
    ].join('\n');
    const block = buildFixedBlock(
      {
        kind: 'project_files',
        tokens: env.meter.priceMessage(env.meter.countText(listing)),
        message: { role: 'user', content: listing },
        label: 'search mode: listing only',
      },
      'project_files',
    );
    let projectTokens = 0;
    for (const file of project.files) projectTokens += file.tokenCount;
    return {
      blocks: [block],
      dropped: [
        {
          kind: 'project_files',
          reason: 'project_search_mode',
          tokens: projectTokens,
          fileNames: project.files.map((file) => file.name),
        },
      ],
    };
  },
};
