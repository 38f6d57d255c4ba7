import type { DBCore, Middleware } from 'dexie';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { CarrelDb } from '../../../src/storage/db';
import { scripts } from '../../fakes/scripted-llm-client';
import { TestAgent, type Turn } from '../../fakes/test-agent';
import { pickRunCount } from '../soak';

/**
 * IndexedDB writes fail on every k-th mutation of a table while the agent
 * runs turns. Every failure must reach the caller (a failed result or an error packet), and
 * once the faults stop, writes work again.
 */
const TURNS = pickRunCount(12, 200);
const TABLES = ['messages', 'sessions'] as const;

interface FaultPlan {
  table: string;
  everyK: number;
  makeError: () => Error;
  isActive: boolean;
  mutations: number;
  injected: number;
}

function createFaultMiddleware(plan: FaultPlan): Middleware<DBCore> {
  return {
    stack: 'dbcore',
    name: 'injected-faults',
    create: (down) => ({
      ...down,
      table(name) {
        const table = down.table(name);
        return {
          ...table,
          mutate(request) {
            if (plan.isActive && name === plan.table && ++plan.mutations % plan.everyK === 0) {
              plan.injected++;
              return Promise.reject(plan.makeError());
            }
            return table.mutate(request);
          },
        };
      },
    }),
  };
}

let counter = 0;
async function openFaultyDb(plan: FaultPlan): Promise<CarrelDb> {
  const db = new CarrelDb(`storage-faults-${++counter}-${Date.now()}`, { indexedDB, IDBKeyRange });
  db.use(createFaultMiddleware(plan));
  await db.open();
  return db;
}

function isSurfaced(turn: Turn): boolean {
  return !turn.result.ok || turn.packets.some((packet) => packet.obj.type === 'error');
}

async function runTurn(agent: TestAgent, index: number): Promise<{ turn: Turn } | { thrown: unknown }> {
  agent.script(scripts.text(`Answer ${index}.`));
  try {
    return { turn: await agent.send(`Question ${index}`) };
  } catch (thrown) {
    return { thrown };
  }
}

describe('injected IndexedDB write failures', () => {
  it.each(TABLES.flatMap((table) => [2, 5, 11].map((everyK) => ({ table, everyK }))))(
    'surfaces every failure on $table (every $everyK-th write) and writes again once it stops',
    async ({ table, everyK }) => {
      const plan: FaultPlan = {
        table,
        everyK,
        makeError: () => new DOMException('Injected write failure', 'UnknownError'),
        isActive: true,
        mutations: 0,
        injected: 0,
      };
      const agent = await TestAgent.create({ db: await openFaultyDb(plan) });
      let swallowed = 0;
      const lost: string[] = [];
      const modes: string[] = [];
      const keptIds: string[] = [];
      for (let i = 0; i < TURNS; i++) {
        const before = plan.injected;
        const outcome = await runTurn(agent, i);
        const hadFault = plan.injected > before;
        // A thrown error reaches the caller too; only a clean-looking turn hides a fault.
        if (hadFault && 'turn' in outcome && !isSurfaced(outcome.turn)) swallowed++;
        if (!hadFault && 'turn' in outcome) {
          // A turn without a fault is whole: its question and a complete answer are stored.
          const { turn } = outcome;
          const last = turn.chain.slice(-2);
          const isWhole =
            turn.result.ok &&
            last[0]?.role === 'user' &&
            last[0].text === `Question ${i}` &&
            last[1]?.role === 'assistant' &&
            last[1].status === 'complete';
          if (!isWhole) lost.push(`turn ${i}: ${JSON.stringify(turn.result)}`);
          else keptIds.push(...last.map((message) => message.id));
        }
        if (hadFault) {
          modes.push('thrown' in outcome ? 'thrown' : outcome.turn.result.ok ? 'packet' : 'result');
        }
      }
      expect(lost, 'turns without a fault that lost something').toEqual([]);
      // Later faults did not take earlier, whole turns with them.
      const stillStored = await agent.db.messages.bulkGet(keptIds);
      expect(stillStored.filter((message) => message === undefined)).toHaveLength(0);
      expect(modes.length, 'turns that met a fault').toBe(TURNS - keptIds.length / 2);
      expect(plan.injected, 'faults were injected').toBeGreaterThan(0);
      expect(swallowed, 'failures swallowed').toBe(0);

      plan.isActive = false;
      // A fresh driver over the same database: scripts of turns that failed before reaching
      // the model are still queued in the old one.
      const recovered = await TestAgent.create({ db: agent.db });
      recovered.script(scripts.text('Back to normal.'));
      const turn = await recovered.send('Does it work again?');
      agent.db.close();
      expect(turn.result.ok).toBe(true);
      expect(turn.chain.map((message) => message.role)).toEqual(['user', 'assistant']);
      expect(JSON.stringify(turn.chain)).toContain('Back to normal.');
    },
    30_000,
  );

  it('reports a full disk as quota_exceeded even when it arrives wrapped in an AbortError', async () => {
    const plan: FaultPlan = {
      table: 'messages',
      everyK: 1,
      makeError: () => {
        const abort = new Error('The transaction was aborted', { cause: new DOMException('Quota exceeded', 'QuotaExceededError') });
        abort.name = 'AbortError';
        return abort;
      },
      isActive: true,
      mutations: 0,
      injected: 0,
    };
    const agent = await TestAgent.create({ db: await openFaultyDb(plan) });
    const outcome = await runTurn(agent, 0);
    agent.db.close();
    expect(plan.injected).toBeGreaterThan(0);
    const surfaced = 'turn' in outcome ? JSON.stringify([outcome.turn.result, outcome.turn.packets]) : String(outcome.thrown);
    expect(surfaced).toContain('quota_exceeded');
  });
});

describe('a final save that fails', () => {
  it('leaves no answer marked streaming: the run closes it as interrupted', async () => {
    let isArmed = true;
    const failFinalSaveOnce: Middleware<DBCore> = {
      stack: 'dbcore',
      name: 'fail-final-save-once',
      create: (down) => ({
        ...down,
        table(name) {
          const table = down.table(name);
          return {
            ...table,
            mutate(request) {
              const isFinalSave =
                name === 'messages' &&
                request.type === 'put' &&
                request.values.some((row: { role?: string; status?: string }) => row.role === 'assistant' && row.status === 'complete');
              if (isArmed && isFinalSave) {
                isArmed = false;
                return Promise.reject(new DOMException('Injected write failure', 'UnknownError'));
              }
              return table.mutate(request);
            },
          };
        },
      }),
    };
    const db = new CarrelDb(`final-save-${Date.now()}`, { indexedDB, IDBKeyRange });
    db.use(failFinalSaveOnce);
    await db.open();
    const agent = await TestAgent.create({ db });
    const turn = await agent.script(scripts.text('An answer whose last save fails.')).send('question');
    expect(turn.result.ok).toBe(false);
    const answers = (await db.messages.toArray()).filter((row) => row.role === 'assistant');
    expect(answers.map((row) => row.status)).toEqual(['interrupted']);
  });
});
