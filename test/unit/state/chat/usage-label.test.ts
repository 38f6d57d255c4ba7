import { describe, expect, it } from 'vitest';
import { asProviderId } from '../../../../src/core/model';
import { describeCachedInput, formatCost, formatThoughtDuration, formatUsage } from '../../../../src/state/chat/usage-label';
import * as catalog from '../../../../src/core/model/model-catalog';
import { computeCost, resolveModelInfo } from '../../../../src/core/model/model-catalog';

const usage = { inputTokens: 1200, outputTokens: 300 };

describe('usage labels', () => {
  it('shows tokens in and out with the catalogue price of a known model', () => {
    const model = { providerId: asProviderId('p1'), modelId: 'gpt-4o-mini' };
    const cost = computeCost(resolveModelInfo({ preset: 'custom', contextWindowOverrides: {} }, 'gpt-4o-mini'), usage);
    expect(cost).toBeGreaterThan(0);
    expect(formatUsage(usage, model, catalog)).toBe(`1,200 in · 300 out · ${formatCost(cost ?? 0)}`);
  });

  it('shows no cost until the model catalogue has arrived, then the price', () => {
    const model = { providerId: asProviderId('p1'), modelId: 'gpt-4o-mini' };
    expect(formatUsage(usage, model, null)).toBe('1,200 in · 300 out');
    expect(formatUsage(usage, model, catalog)).toMatch(/^1,200 in · 300 out · \$/);
  });

  it('shows no cost for a model without a known price', () => {
    const model = { providerId: asProviderId('p1'), modelId: 'my-local-model-xyz' };
    expect(formatUsage(usage, model, catalog)).toBe('1,200 in · 300 out');
  });

  it('puts cached input right after the input, and reasoning after the output', () => {
    const model = { providerId: asProviderId('p1'), modelId: 'my-local-model-xyz' };
    const cachedUsage = { inputTokens: 9_632, outputTokens: 198, cachedInputTokens: 6_289, reasoningTokens: 40 };
    expect(formatUsage(cachedUsage, model, catalog)).toBe('9,632 in · 6,289 cached · 198 out · 40 reasoning');
  });

  it('describes the cached share of the input as the provider reported it', () => {
    expect(describeCachedInput({ inputTokens: 9_632, outputTokens: 1, cachedInputTokens: 6_289 })).toBe(
      '6,289 of 9,632 input tokens (65%)',
    );
    expect(describeCachedInput({ inputTokens: 1_200, outputTokens: 1, cachedInputTokens: 0 })).toBe('None of 1,200 input tokens');
    expect(describeCachedInput({ inputTokens: 1_200, outputTokens: 1 })).toBe('Not reported by the provider');
  });

  it('keeps two significant digits for sub-cent costs', () => {
    expect(formatCost(0.000123)).toBe('$0.00012');
    expect(formatCost(1.5)).toBe('$1.50');
  });

  it('says how long the model thought', () => {
    expect(formatThoughtDuration(3_200)).toBe('Thought for 3 s');
    expect(formatThoughtDuration(65_000)).toBe('Thought for 1 min 5 s');
    expect(formatThoughtDuration(120)).toBe('Thought for 1 s');
  });
});
