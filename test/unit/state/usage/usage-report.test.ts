import { describe, expect, it } from 'vitest';
import type { UsageRecord } from '../../../../src/core/ports';
import type { MessageId, ProviderId, SessionId } from '../../../../src/core/model';
import { buildUsageReport, dayOf } from '../../../../src/state/usage/usage-report';

const DAY_MS = 86_400_000;
const noon = new Date(2026, 10, 25, 12).getTime();

function record(providerId: string, modelId: string, sessionId: string, createdAt: number, usage: UsageRecord['usage']): UsageRecord {
  return {
    id: `${sessionId}-${String(createdAt)}`,
    sessionId: sessionId as SessionId,
    messageId: `m-${String(createdAt)}` as MessageId,
    model: { providerId: providerId as ProviderId, modelId },
    usage,
    createdAt,
  };
}

describe('buildUsageReport', () => {
  const report = buildUsageReport({
    records: [
      record('openai', 'gpt-4o-mini', 's1', noon, { inputTokens: 1000, cachedInputTokens: 400, outputTokens: 500 }),
      record('openai', 'gpt-4o-mini', 's2', noon + DAY_MS, { inputTokens: 2000, outputTokens: 1000, reasoningTokens: 200 }),
      record('ollama', 'llama3.2', 's2', noon + DAY_MS, { inputTokens: 300, outputTokens: 100 }),
      record('custom', 'my-own-model', 's1', noon, { inputTokens: 10, outputTokens: 10 }),
    ],
    sessions: [
      { id: 's1', title: 'Loose chat', projectId: null },
      { id: 's2', title: 'Project chat', projectId: 'p1' },
    ],
    projects: [{ id: 'p1', name: 'Thesis' }],
    providers: [
      { id: 'openai' as ProviderId, name: 'OpenAI', preset: 'openai', contextWindowOverrides: {} },
      { id: 'ollama' as ProviderId, name: 'Ollama', preset: 'ollama', contextWindowOverrides: {} },
      { id: 'custom' as ProviderId, name: 'Mine', preset: 'custom', contextWindowOverrides: {} },
    ],
  });

  it('sums every kind of token and prices known models, local servers at nothing', () => {
    expect(report.totals).toMatchObject({ answers: 4, inputTokens: 3310, cachedInputTokens: 400, outputTokens: 1610, reasoningTokens: 200, unpricedAnswers: 1 });
    expect(report.totals.cost).toBeCloseTo(0.00132, 8);
    expect(report.byProvider.find((row) => row.label === 'Ollama')).toMatchObject({ cost: 0, unpricedAnswers: 0 });
  });

  it('groups by day, model, provider, chat and project', () => {
    expect(report.byDay.map((row) => [row.label, row.answers])).toEqual([
      [dayOf(noon), 2],
      [dayOf(noon + DAY_MS), 2],
    ]);
    expect(report.byModel[0]).toMatchObject({ label: 'gpt-4o-mini · OpenAI', answers: 2 });
    expect(report.byChat.map((row) => row.label)).toEqual(['Project chat', 'Loose chat']);
    expect(report.byProject.map((row) => [row.label, row.answers])).toEqual([
      ['Thesis', 2],
      ['No project', 2],
    ]);
  });
});
