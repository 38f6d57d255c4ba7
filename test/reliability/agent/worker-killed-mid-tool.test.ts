import fc from 'fast-check';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Tool } from '../../../src/core/agent/tools/tool';
import type { AssistantMessage } from '../../../src/core/model';
import { openCarrelDb } from '../../../src/storage/db';
import { createMessageStore } from '../../../src/storage/message.store';
import { scripts } from '../../fakes/scripted-llm-client';
import { createSteppingClock, TestAgent } from '../../fakes/test-agent';
import { pickRunCount, pickTimeoutMs } from '../soak';

/**
 * The agent worker terminated in the middle of a multi-step run. A killed
 * worker commits nothing after its death, so the kill is closing its database connection at a
 * random packet (later writes fail, as they would never happen) and abandoning the run; a new
 * host then opens the same database and recovers.
 */
const KILL_RUNS = pickRunCount(15, 200);

/** A tool whose `killAt`-th call kills the worker: `onKill` runs, and the call never returns. */
function createKillingTool(killAt: number, onKill: () => Promise<void>): Tool<{ q: string }> {
  let calls = 0;
  return {
    name: 'lookup',
    description: 'Looks something up.',
    usage: 'Use lookup to look things up.',
    isSearch: false,
    inputSchema: z.object({ q: z.string() }),
    async execute() {
      if (++calls === killAt) {
        await onKill();
        // A dead worker never answers: this promise stays pending, as the abandoned run does.
        return new Promise<never>(() => undefined);
      }
      await new Promise<void>((resolve) => setTimeout(resolve, 2));
      return { kind: 'text', content: 'found it', isError: false };
    },
  };
}

let databaseCounter = 0;

describe('the worker terminated in the middle of a tool call', () => {
  it(
    `leaves no answer streaming and no tool call without a result after recovery (${KILL_RUNS} runs)`,
    async () => {
      let orphanedToolCalls = 0;
      let unfinishedRuns = 0;
      let recoveredRuns = 0;
      let recoveredToolCalls = 0;
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.boolean(), async (killAt, shouldCheckpointFirst) => {
          const name = `killed-mid-tool-${++databaseCounter}`;
          const dexie = { indexedDB, IDBKeyRange };
          const db = await openCarrelDb(name, { dexie });
          const running: { agent?: TestAgent } = {};
          let markKilled: () => void = () => undefined;
          const killed = new Promise<void>((resolve) => (markKilled = resolve));
          const kill = async () => {
            const agent = running.agent;
            if (shouldCheckpointFirst && agent) {
              // Time passes: the checkpointer's trailing write runs and commits before the kill.
              agent.clock.advance(2_000);
              agent.scheduler.runPending();
              await new Promise<void>((resolve) => setTimeout(resolve, 20));
            }
            db.close({ disableAutoOpen: true });
            markKilled();
          };
          const agent = await TestAgent.create({ db, tools: [createKillingTool(killAt, kill)] });
          running.agent = agent;
          agent.script(
            [{ type: 'text-delta', text: 'Let me look. ' }, ...scripts.toolCalls([{ id: 'c1', name: 'lookup', args: { q: 'a' } }])],
            [{ type: 'text-delta', text: 'And again. ' }, ...scripts.toolCalls([{ id: 'c2', name: 'lookup', args: { q: 'b' } }, { id: 'c3', name: 'lookup', args: { q: 'c' } }])],
            scripts.text('Done looking.'),
          );
          // The run is abandoned with its worker: never awaited to the end.
          void agent.send('Look three things up').catch(() => undefined);
          // Recovery starts only once the worker is dead, however slow the machine is.
          await killed;

          const reopened = await openCarrelDb(name, { dexie });
          const recovered = await TestAgent.create({ db: reopened });
          const recoveredNow = await recovered.api.recoverInterrupted();
          recoveredRuns += recoveredNow;
          const messages = createMessageStore(reopened, createSteppingClock());
          const answers = (await reopened.table('messages').toArray()) as Array<{ id: string; role: string }>;
          for (const row of answers.filter((r) => r.role === 'assistant')) {
            const answer = (await messages.get(row.id as AssistantMessage['id'])) as AssistantMessage;
            if (answer.status === 'streaming') unfinishedRuns++;
            for (const step of answer.steps) {
              if (recoveredNow > 0) recoveredToolCalls += step.toolCalls.length;
              for (const call of step.toolCalls) if (call.status === 'pending' || call.result === undefined) orphanedToolCalls++;
            }
          }
          reopened.close();
        }),
        { numRuns: KILL_RUNS },
      );
      // The kill really left answers mid-run (with tool calls) for recovery to deal with.
      expect(recoveredRuns).toBeGreaterThan(0);
      expect(recoveredToolCalls).toBeGreaterThan(0);
      expect(unfinishedRuns).toBe(0);
      expect(orphanedToolCalls).toBe(0);
    },
    pickTimeoutMs(60_000, 900_000),
  );
});
