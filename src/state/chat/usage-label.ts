import type { ModelRef, Usage } from '../../core/model';
import type { ModelCatalog } from '../settings/model-catalog.svelte';

/**
 * "1,234 in · 567 out · $0.0012": an answer's usage and cost for its hover card. Prices depend on
 * the model id alone (the catalogue), so no provider settings are needed; an unknown model shows
 * no cost rather than a guess (and none until the catalogue has arrived).
 */
export function formatUsage(usage: Usage, model: ModelRef | undefined, catalog: ModelCatalog | null): string {
  const parts = [`${formatCount(usage.inputTokens)} in`];
  // Cached input is part of the input: it follows it, so "in · cached" reads as one fact.
  if (usage.cachedInputTokens) parts.push(`${formatCount(usage.cachedInputTokens)} cached`);
  parts.push(`${formatCount(usage.outputTokens)} out`);
  if (usage.reasoningTokens) parts.push(`${formatCount(usage.reasoningTokens)} reasoning`);
  const cost =
    model && catalog
      ? catalog.computeCost(catalog.resolveModelInfo({ preset: 'custom', contextWindowOverrides: {} }, model.modelId), usage)
      : undefined;
  if (cost !== undefined) parts.push(formatCost(cost));
  return parts.join(' · ');
}

/**
 * "6,289 of 9,632 input tokens (65%)": how much of an answer's input the provider served from
 * its prompt cache, as it reported; "None of 1,200 input tokens" when it reported none;
 * "Not reported" when the provider says nothing about caching.
 */
export function describeCachedInput(usage: Usage): string {
  const cached = usage.cachedInputTokens;
  if (cached === undefined) return 'Not reported by the provider';
  const input = `${formatCount(usage.inputTokens)} input tokens`;
  if (cached === 0) return `None of ${input}`;
  const share = usage.inputTokens > 0 ? Math.round((cached / usage.inputTokens) * 100) : 0;
  return `${formatCount(cached)} of ${input} (${String(share)}%)`;
}

export function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}

/** Sub-cent costs keep two significant digits, so a cheap answer does not read "$0.00". */
export function formatCost(usd: number): string {
  if (usd === 0) return '$0';
  if (usd >= 0.01) return `$${usd.toFixed(2)}`;
  return `$${usd.toPrecision(2)}`;
}

/** "Thought for 3 s" / "Thought for 1 min 5 s". */
export function formatThoughtDuration(durationMs: number): string {
  const seconds = Math.max(1, Math.round(durationMs / 1000));
  if (seconds < 60) return `Thought for ${String(seconds)} s`;
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  return rest === 0 ? `Thought for ${String(minutes)} min` : `Thought for ${String(minutes)} min ${String(rest)} s`;
}
