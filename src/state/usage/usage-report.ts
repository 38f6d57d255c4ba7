import type { ProviderConfig, Usage } from '../../core/model';
import { computeAnswerCost } from '../../core/model/model-catalog';
import type { UsageRecord } from '../../core/ports';

/**
 * The Usage screen's figures: every recorded answer's tokens and cost, summed per day, model,
 * provider, chat and project. Pure, so the sums are unit-tested.
 */

export interface UsageTotals {
  answers: number;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  /** USD, over the answers with a known price. */
  cost: number;
  /** Answers whose model has no known price (their tokens count, their cost cannot). */
  unpricedAnswers: number;
}

export interface UsageRow extends UsageTotals {
  key: string;
  label: string;
}

export interface UsageReport {
  totals: UsageTotals;
  /** Oldest first, one row per day with usage (local time, "2026-11-26"). */
  byDay: UsageRow[];
  /** Most tokens first. */
  byModel: UsageRow[];
  byProvider: UsageRow[];
  byChat: UsageRow[];
  byProject: UsageRow[];
}

export interface UsageReportInput {
  records: readonly UsageRecord[];
  sessions: ReadonlyArray<{ id: string; title: string; projectId?: string | null | undefined }>;
  projects: ReadonlyArray<{ id: string; name: string }>;
  providers: ReadonlyArray<Pick<ProviderConfig, 'id' | 'name' | 'preset' | 'contextWindowOverrides'>>;
}

const emptyTotals = (): UsageTotals => ({
  answers: 0,
  inputTokens: 0,
  cachedInputTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
  cost: 0,
  unpricedAnswers: 0,
});

function add(totals: UsageTotals, usage: Usage, cost: number | undefined): void {
  totals.answers += 1;
  totals.inputTokens += usage.inputTokens;
  totals.cachedInputTokens += usage.cachedInputTokens ?? 0;
  totals.outputTokens += usage.outputTokens;
  totals.reasoningTokens += usage.reasoningTokens ?? 0;
  if (cost === undefined) totals.unpricedAnswers += 1;
  else totals.cost += cost;
}

/** Input and output tokens (reasoning is part of the output as providers bill it). */
export function totalTokens(totals: Pick<UsageTotals, 'inputTokens' | 'outputTokens'>): number {
  return totals.inputTokens + totals.outputTokens;
}

/** "2026-11-26" in the person's time zone. */
export function dayOf(timeMs: number): string {
  const date = new Date(timeMs);
  const pad = (value: number): string => String(value).padStart(2, '0');
  return `${String(date.getFullYear())}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** A provider deleted since keeps its usage, under its id and without a price. */
const UNKNOWN_PROVIDER = { preset: 'custom', contextWindowOverrides: {} } as const;

export function buildUsageReport(input: UsageReportInput): UsageReport {
  const providers = new Map(input.providers.map((provider) => [provider.id as string, provider]));
  const sessions = new Map(input.sessions.map((session) => [session.id, session]));
  const projects = new Map(input.projects.map((project) => [project.id, project.name]));
  const totals = emptyTotals();
  const groups = {
    byDay: new Map<string, UsageRow>(),
    byModel: new Map<string, UsageRow>(),
    byProvider: new Map<string, UsageRow>(),
    byChat: new Map<string, UsageRow>(),
    byProject: new Map<string, UsageRow>(),
  };
  const addTo = (group: Map<string, UsageRow>, key: string, label: string, usage: Usage, cost: number | undefined): void => {
    const row = group.get(key) ?? { key, label, ...emptyTotals() };
    add(row, usage, cost);
    group.set(key, row);
  };
  for (const record of input.records) {
    const provider = providers.get(record.model.providerId);
    const providerName = provider?.name ?? 'Removed provider';
    const cost = computeAnswerCost(provider ?? UNKNOWN_PROVIDER, record.model.modelId, record.usage);
    add(totals, record.usage, cost);
    const day = dayOf(record.createdAt);
    addTo(groups.byDay, day, day, record.usage, cost);
    addTo(groups.byModel, `${record.model.providerId}/${record.model.modelId}`, `${record.model.modelId} · ${providerName}`, record.usage, cost);
    addTo(groups.byProvider, record.model.providerId, providerName, record.usage, cost);
    const session = sessions.get(record.sessionId);
    addTo(groups.byChat, record.sessionId, session?.title ?? 'Deleted chat', record.usage, cost);
    const projectId = session?.projectId ?? '';
    addTo(groups.byProject, projectId, projectId ? (projects.get(projectId) ?? 'Deleted project') : 'No project', record.usage, cost);
  }
  const byTokens = (rows: Map<string, UsageRow>): UsageRow[] =>
    [...rows.values()].sort((a, b) => totalTokens(b) - totalTokens(a) || a.label.localeCompare(b.label));
  return {
    totals,
    byDay: [...groups.byDay.values()].sort((a, b) => a.key.localeCompare(b.key)),
    byModel: byTokens(groups.byModel),
    byProvider: byTokens(groups.byProvider),
    byChat: byTokens(groups.byChat),
    byProject: byTokens(groups.byProject),
  };
}
