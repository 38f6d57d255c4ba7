import { INPUT_BUDGET_RATIO } from './budget';
import type { AssembledContext } from './types';

/**
 * How many output tokens the prompt as assembled leaves in the model's window; a request asks
 * for at most this many, so prompt plus answer fit. The prompt's count is an estimate, so it
 * is taken with the same margin the input budget keeps (a prompt that fills its budget still
 * leaves the reserved output). Never below 1: a provider rejects 0.
 */
export function measureOutputRoom(context: Pick<AssembledContext, 'budget' | 'totalTokens'>): number {
  const { contextWindow, toolTokens } = context.budget;
  const prompt = Math.ceil((context.totalTokens + toolTokens) / INPUT_BUDGET_RATIO);
  return Math.max(1, contextWindow - prompt);
}
