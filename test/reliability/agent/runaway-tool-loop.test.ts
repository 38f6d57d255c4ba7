import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MAX_LLM_CYCLES } from '../../../src/core/agent/run-llm-loop';
import type { Tool } from '../../../src/core/agent/tools/tool';
import { scripts } from '../../fakes/scripted-llm-client';
import { TestAgent } from '../../fakes/test-agent';
import { pickRunCount } from '../soak';

/** A model that always calls a tool. */
const RUNAWAY_RUNS = pickRunCount(10, 100);

function createPingTool(): Tool<{ n: number }> & { calls: number } {
  const tool = {
    name: 'ping',
    description: 'Pings.',
    usage: 'Use ping to ping.',
    isSearch: false,
    inputSchema: z.object({ n: z.number() }),
    calls: 0,
    execute() {
      tool.calls++;
      return Promise.resolve({ kind: 'text' as const, content: 'pong', isError: false });
    },
  };
  return tool;
}

describe('a model that calls a tool forever', () => {
  it(`stops after ${MAX_LLM_CYCLES} cycles with a reason the person can read, every time (${RUNAWAY_RUNS} runs)`, async () => {
    let stoppedWithReason = 0;
    for (let run = 0; run < RUNAWAY_RUNS; run++) {
      const ping = createPingTool();
      const agent = await TestAgent.create({ tools: [ping] });
      // More scripts than cycles: a loop that ran past its limit would consume them.
      for (let i = 0; i < MAX_LLM_CYCLES + 3; i++) agent.script(scripts.toolCalls([{ id: `call-${run}-${i}`, name: 'ping', args: { n: i } }]));
      const turn = await agent.send('Ping until you are told to stop');
      agent.db.close();
      expect(agent.llm.requests).toHaveLength(MAX_LLM_CYCLES);
      expect(turn.result.ok && turn.result.value.stopReasons).toEqual(['max_cycles']);
      const answer = turn.answers[0];
      const reason = answer?.error?.message ?? '';
      const errorPacket = turn.packets.find((p) => p.obj.type === 'error');
      if (reason.includes(String(MAX_LLM_CYCLES)) && errorPacket) stoppedWithReason++;
    }
    expect(stoppedWithReason).toBe(RUNAWAY_RUNS);
  }, 60_000);
});
