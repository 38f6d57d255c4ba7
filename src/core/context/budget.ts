import { DEFAULT_UPLOAD_SHARE, MAX_UPLOAD_SHARE, type Agent, type ModelInfo, type ProjectFile } from '../model';
import type { ContextBudget, ProjectMode } from './types';

/** Share of (window − reserved output) the messages may fill; the rest absorbs estimate error. */
export const INPUT_BUDGET_RATIO = 0.95;

/** A project goes inline when its text takes less than this share of (window − output). */
export const PROJECT_FIT_RATIO = 0.6;

/**
 * Some catalogs list a max output as large as the window; reserving all of it would leave no
 * room for input, so at most this share of the window is reserved.
 */
export const MAX_RESERVED_OUTPUT_RATIO = 0.5;

export function resolveReservedOutput(model: ModelInfo, requested?: number): number {
  const wanted = requested ?? model.maxOutputTokens;
  return Math.min(wanted, Math.floor(model.contextWindow * MAX_RESERVED_OUTPUT_RATIO));
}

/** Pure arithmetic: what the messages of one request may use. */
export function allocateBudget(
  model: ModelInfo,
  reservedOutputTokens: number,
  toolTokens: number,
): ContextBudget {
  const usable = model.contextWindow - reservedOutputTokens;
  return {
    contextWindow: model.contextWindow,
    reservedOutputTokens,
    toolTokens,
    inputBudget: Math.max(0, Math.floor(usable * INPUT_BUDGET_RATIO) - toolTokens),
  };
}

/** Text tokens a project would put in the context (files without text count nothing). */
export function sumProjectTokens(files: readonly ProjectFile[]): number {
  let total = 0;
  for (const file of files) {
    if (file.status === 'ready') total += file.tokenCount;
  }
  return total;
}

/** How a project's files measure against one model, and what that decides. */
export interface ProjectFitMeasure {
  /** Text tokens the files would put in the context. */
  totalTokens: number;
  /** Below this many tokens the files go inline: PROJECT_FIT_RATIO of (window − output). */
  inlineLimit: number;
  mode: ProjectMode;
}

/**
 * The one place fit or search is decided: inline when every file fits comfortably (below
 * PROJECT_FIT_RATIO of window − output); otherwise the model searches the project with tools.
 * Pure, so turn assembly, the context engine and the projects panel ask the same question and
 * get the same answer before anything is assembled.
 */
export function measureProjectFit(
  files: readonly ProjectFile[],
  model: ModelInfo,
  reservedOutputTokens?: number,
): ProjectFitMeasure {
  const reserved = resolveReservedOutput(model, reservedOutputTokens);
  const inlineLimit = (model.contextWindow - reserved) * PROJECT_FIT_RATIO;
  const totalTokens = sumProjectTokens(files);
  return { totalTokens, inlineLimit, mode: totalTokens < inlineLimit ? 'inline' : 'search' };
}

/** measureProjectFit's verdict alone. */
export function decideProjectMode(
  files: readonly ProjectFile[],
  model: ModelInfo,
  reservedOutputTokens?: number,
): ProjectMode {
  return measureProjectFit(files, model, reservedOutputTokens).mode;
}

/** The agent's share of the input budget for uploaded content, within its bounds. */
export function resolveUploadShare(agent: Pick<Agent, 'uploadShare'>): number {
  const share = agent.uploadShare ?? DEFAULT_UPLOAD_SHARE;
  return Math.min(MAX_UPLOAD_SHARE, Math.max(0, share));
}

/** Tokens reserved for uploaded content, and what is left for the rest of the history. */
export function splitInputBudget(
  inputBudget: number,
  uploadShare: number,
): { uploadBudget: number; historyBudget: number } {
  const uploadBudget = Math.floor(inputBudget * uploadShare);
  return { uploadBudget, historyBudget: inputBudget - uploadBudget };
}
