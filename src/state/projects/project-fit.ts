/**
 * Whether a project's files fit a model (the context engine's own rule) and whether an
 * attachment can be sent at all, as the projects panel and the attachment chips say it.
 */
import {
  allocateBudget,
  measureProjectFit,
  PROJECT_FIT_RATIO,
  resolveReservedOutput,
  sumProjectTokens,
  type ProjectMode,
} from '../../core/context';
import type { ModelInfo, ProjectFile } from '../../core/model';
import { showFileName } from '../../util/file-name';
import { formatCount } from '../chat/usage-label';

export interface EmbeddedCount {
  embedded: number;
  total: number;
}

export interface ProjectFit {
  totalTokens: number;
  /** The selected model's window; null without a model. */
  contextWindow: number | null;
  /** Tokens the files may take and still go inline; null without a model. */
  inlineLimit: number | null;
  /** What the turn will do with the files (measureProjectFit's verdict); null without a model. */
  mode: ProjectMode | null;
  modeLabel: string;
  /** How search works right now (keywords only, or hybrid); null when the files go inline. */
  searchLabel: string | null;
}


export const KEYWORD_ONLY_LABEL = 'Keyword search only: the passages have no embeddings yet.';

/** The panel's fit-or-search line for these files and this model (measureProjectFit decides). */
export function describeProjectFit(
  files: readonly ProjectFile[],
  model: ModelInfo | null,
  embedded: EmbeddedCount | null,
): ProjectFit {
  if (model === null) {
    const totalTokens = sumProjectTokens(files);
    return {
      totalTokens,
      contextWindow: null,
      inlineLimit: null,
      mode: null,
      modeLabel: 'Choose a model to see whether the files fit in its context.',
      searchLabel: null,
    };
  }
  const { totalTokens, inlineLimit, mode } = measureProjectFit(files, model);
  return {
    totalTokens,
    contextWindow: model.contextWindow,
    inlineLimit: Math.floor(inlineLimit),
    mode,
    modeLabel:
      mode === 'inline'
        ? 'All files in context'
        : `Searching the files: the project is larger than ${Math.round(PROJECT_FIT_RATIO * 100)}% of this model’s context`,
    searchLabel: mode === 'inline' ? null : describeSearch(embedded),
  };
}

function describeSearch(embedded: EmbeddedCount | null): string {
  if (embedded === null || embedded.embedded === 0) return KEYWORD_ONLY_LABEL;
  if (embedded.embedded < embedded.total) {
    return `Hybrid search: ${formatCount(embedded.embedded)} of ${formatCount(embedded.total)} passages embedded, the rest by keyword.`;
  }
  return 'Hybrid search: keywords and embeddings.';
}

/**
 * Refuses an attachment larger than the model's whole input budget, with the context engine's
 * failed-inclusion message (assembleContext's `file_too_large`), before anything is sent.
 */
export function checkAttachmentFits(
  attachment: { name: string; kind: 'text' | 'image'; tokenCount: number },
  model: ModelInfo | null,
): string | null {
  if (model === null || attachment.kind !== 'text') return null;
  const limit = allocateBudget(model, resolveReservedOutput(model), 0).inputBudget;
  if (attachment.tokenCount <= limit) return null;
  return `The file "${showFileName(attachment.name)}" has ${formatCount(attachment.tokenCount)} tokens, more than this model can take (${formatCount(limit)} tokens).`;
}
