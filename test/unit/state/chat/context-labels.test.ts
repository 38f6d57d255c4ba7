import { describe, expect, it } from 'vitest';
import type { ContextMessage } from '../../../../src/core/context';
import { explainSendBlock, formatTokens, isOverBudget, renderMessageText, summarizeByKind } from '../../../../src/state/chat/context-labels';

const budget = { contextWindow: 1000, reservedOutputTokens: 100, toolTokens: 0, inputBudget: 855 };
const message = (kind: ContextMessage['kind'], tokens: number): ContextMessage => ({
  kind,
  tokens,
  message: { role: 'user', content: 'x' },
});

describe('formatTokens', () => {
  it('keeps the meter short', () => {
    expect(formatTokens(950)).toBe('950');
    expect(formatTokens(12_345)).toBe('12.3k');
    expect(formatTokens(128_000)).toBe('128k');
    expect(formatTokens(2_000)).toBe('2k');
    expect(formatTokens(1_048_576)).toBe('1.05M');
  });
});

describe('summarizeByKind', () => {
  it('adds tokens per kind in order of appearance with each share of the window', () => {
    const totals = summarizeByKind({ messages: [message('system', 100), message('user', 50), message('assistant', 30), message('user', 20)], budget });
    expect(totals).toEqual([
      { kind: 'system', letter: 'S', tokens: 100, share: 0.1 },
      { kind: 'user', letter: 'U', tokens: 70, share: 0.07 },
      { kind: 'assistant', letter: 'A', tokens: 30, share: 0.03 },
    ]);
  });
  it('is over budget only past the input budget', () => {
    expect(isOverBudget({ totalTokens: 855, budget })).toBe(false);
    expect(isOverBudget({ totalTokens: 856, budget })).toBe(true);
  });
});

describe('explainSendBlock', () => {
  const ok = { hasModel: true, isOnline: true, isLocalOnly: false, isOverBudget: false, isDraftEmpty: false };
  it('enables Send when nothing is wrong', () => {
    expect(explainSendBlock(ok)).toBe('');
  });
  it('names the first thing to fix: provider, then connection, then budget, then the empty draft', () => {
    expect(explainSendBlock({ ...ok, hasModel: false, isOnline: false })).toMatch(/add a provider/i);
    expect(explainSendBlock({ ...ok, isOnline: false, isOverBudget: true })).toMatch(/offline/i);
    expect(explainSendBlock({ ...ok, isOverBudget: true, isDraftEmpty: true })).toMatch(/context budget/i);
    expect(explainSendBlock({ ...ok, isDraftEmpty: true })).toBe('Type a message.');
  });
  it('lets a local model answer while offline', () => {
    expect(explainSendBlock({ ...ok, isOnline: false, isLocalOnly: true })).toBe('');
  });
});

describe('renderMessageText', () => {
  it('shows every part of a message, tool calls and results included', () => {
    expect(renderMessageText({ role: 'system', content: 'Be kind.' })).toBe('Be kind.');
    expect(
      renderMessageText({
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'web_search', input: { query: 'x' } },
        ],
      }),
    ).toBe('Looking.\n[call web_search] {"query":"x"}');
    expect(
      renderMessageText({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'web_search', output: 'none', isError: true }] }),
    ).toBe('[result web_search, error] none');
  });
});
