import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { compactChat, undoCompaction } from '../../../../src/core/agent/compact-chat';
import { assembleContext } from '../../../../src/core/context';
import { asProviderId, type ChatSummary, type ProviderConfig, type SessionId } from '../../../../src/core/model';
import type { SummaryStore, TokenCounter } from '../../../../src/core/ports';
import { createTokenCounter } from '../../../../src/core/tokens';
import { buildModelInfo, buildUserMessage } from '../../../builders';
import { scripts, ScriptedLlmClient } from '../../../fakes/scripted-llm-client';
import { buildSessionInput, sessionArbitrary } from './random-session';

function createMemorySummaryStore(): SummaryStore & { rows: ChatSummary[] } {
  const rows: ChatSummary[] = [];
  return {
    rows,
    add: (summary) => {
      rows.push(structuredClone(summary));
      return Promise.resolve(summary);
    },
    listBySession: (sessionId) => Promise.resolve(rows.filter((row) => row.sessionId === sessionId).map((row) => structuredClone(row))),
    markUndone: (id, at) => {
      const row = rows.find((candidate) => candidate.id === id);
      if (row) row.undoneAt = at;
      return Promise.resolve();
    },
  };
}

const PROVIDER = { id: asProviderId('p'), kind: 'openai' } as ProviderConfig;

describe('compaction properties', () => {
  let counter: TokenCounter;
  beforeAll(async () => {
    counter = await createTokenCounter(['o200k_base']);
  });

  it('never removes or changes a stored message, and never exceeds the budget with a summary in place', async () => {
    await fc.assert(
      fc.asyncProperty(
        sessionArbitrary,
        fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        async (session, summaryWords, shouldUndo) => {
          const input = buildSessionInput(session, counter);
          const saved = input.chain;
          const before = structuredClone(saved);
          const store = createMemorySummaryStore();
          const llm = new ScriptedLlmClient();
          let tick = 0;
          const deps = {
            llm,
            tokens: counter,
            clock: { now: () => 1_700_000_000_000 + ++tick, timeZone: () => 'UTC' },
            ids: { newId: () => `s${++tick}` },
            summaries: store,
          };
          const sessionId = saved[0]?.sessionId as SessionId;
          for (const words of summaryWords) {
            llm.enqueue([scripts.text('word '.repeat(words))]);
            await compactChat(
              {
                sessionId,
                chain: saved,
                agent: input.agent,
                chatModel: input.model,
                chatProvider: PROVIDER,
                summariser: { provider: PROVIDER, ref: { providerId: PROVIDER.id, modelId: 'small' }, model: buildModelInfo({ contextWindow: 2_000, maxOutputTokens: 300 }) },
                force: true,
              },
              deps,
              new AbortController().signal,
            );
          }
          if (shouldUndo) await undoCompaction(sessionId, saved, deps);
          // Nothing stored is touched; each summary covers a prefix of the chain.
          expect(saved).toEqual(before);
          for (const summary of store.rows) {
            expect(summary.coveredIds).toEqual(saved.slice(0, summary.coveredIds.length).map((m) => m.id));
            expect(summary.coveredIds.at(-1)).toBe(summary.lastMessageId);
          }
          // The next question's context: within budget, and every stored message is either sent
          // or reported with why (summarised, trimmed, excluded): none vanishes.
          const next = buildUserMessage({ text: 'And next?' });
          const chain = [...saved, { ...next, id: 'next' as never, parentId: saved.at(-1)?.id ?? null, sessionId }];
          const result = assembleContext({ ...input, chain, turnSteps: [], summaries: store.rows });
          if (!result.ok) {
            expect(result.error.code).not.toBe('no_user_message');
            return;
          }
          const context = result.value;
          expect(context.totalTokens).toBeLessThanOrEqual(context.budget.inputBudget);
          const accountedFor = (assembled: typeof context): Set<string> => {
            const ids = new Set<string>();
            for (const message of assembled.messages) {
              if (message.sourceId) ids.add(message.sourceId);
              for (const id of message.summaryOf ?? []) ids.add(id);
            }
            for (const item of assembled.dropped) if (item.sourceId) ids.add(item.sourceId);
            return ids;
          };
          const without = assembleContext({ ...input, chain, turnSteps: [] });
          if (without.ok) {
            const withSummary = accountedFor(context);
            for (const id of accountedFor(without.value)) expect(withSummary.has(id)).toBe(true);
          }
          expect(context.messages.filter((m) => m.kind === 'summary').length).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 200 },
    );
  });
});
