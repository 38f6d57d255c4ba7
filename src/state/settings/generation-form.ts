import {
  MAX_TEMPERATURE,
  MIN_THINKING_BUDGET,
  reasoningEffortSchema,
  type GenerationSettings,
  type ReasoningEffort,
} from '../../core/model';

/** The generation fields as typed: an empty field leaves the setting unset (the default holds). */
export interface GenerationFormValues {
  temperature: string;
  topP: string;
  maxOutputTokens: string;
  reasoningEffort: '' | ReasoningEffort;
  thinkingBudget: string;
}

export const REASONING_EFFORTS: readonly ReasoningEffort[] = reasoningEffortSchema.options;

export function toGenerationFormValues(settings: GenerationSettings | undefined): GenerationFormValues {
  const show = (value: number | undefined) => (value === undefined ? '' : String(value));
  return {
    temperature: show(settings?.temperature),
    topP: show(settings?.topP),
    maxOutputTokens: show(settings?.maxOutputTokens),
    reasoningEffort: settings?.reasoningEffort ?? '',
    thinkingBudget: show(settings?.thinkingBudget),
  };
}

export type ParsedGeneration = { ok: true; settings: GenerationSettings } | { ok: false; problem: string };

/**
 * A bound number input hands over a number, or null (or '') when it is empty: all are read.
 * Undefined means "not set"; null means "not a number".
 */
function readNumber(value: string | number | null | undefined): number | undefined | null {
  if (value === null || value === undefined) return undefined;
  const text = String(value).trim();
  if (text === '') return undefined;
  const number = Number(text);
  return Number.isFinite(number) ? number : null;
}

/**
 * The settings the fields describe, or what is wrong with them in words a person can act on.
 * Only the fields that were filled in become settings.
 */
export function parseGenerationForm(values: GenerationFormValues): ParsedGeneration {
  const settings: GenerationSettings = {};
  const temperature = readNumber(values.temperature);
  if (temperature === null || (temperature !== undefined && (temperature < 0 || temperature > MAX_TEMPERATURE)))
    return { ok: false, problem: `Temperature is a number from 0 to ${MAX_TEMPERATURE}, or empty for the model's default.` };
  if (temperature !== undefined) settings.temperature = temperature;
  const topP = readNumber(values.topP);
  if (topP === null || (topP !== undefined && (topP <= 0 || topP > 1)))
    return { ok: false, problem: "Top-p is a number above 0 and at most 1, or empty for the model's default." };
  if (topP !== undefined) settings.topP = topP;
  const maxOutputTokens = readNumber(values.maxOutputTokens);
  if (maxOutputTokens === null || (maxOutputTokens !== undefined && (!Number.isInteger(maxOutputTokens) || maxOutputTokens < 1)))
    return { ok: false, problem: "The answer length is a whole number of tokens, 1 or more, or empty for the model's maximum." };
  if (maxOutputTokens !== undefined) settings.maxOutputTokens = maxOutputTokens;
  if (values.reasoningEffort !== '') settings.reasoningEffort = values.reasoningEffort;
  const thinkingBudget = readNumber(values.thinkingBudget);
  if (
    thinkingBudget === null ||
    (thinkingBudget !== undefined &&
      (!Number.isInteger(thinkingBudget) || (thinkingBudget !== 0 && thinkingBudget < MIN_THINKING_BUDGET)))
  )
    return {
      ok: false,
      problem: `The thinking budget is 0 (no thinking) or a whole number of tokens from ${MIN_THINKING_BUDGET.toLocaleString('en-US')}, or empty for the model's default.`,
    };
  if (thinkingBudget !== undefined) settings.thinkingBudget = thinkingBudget;
  return { ok: true, settings };
}

