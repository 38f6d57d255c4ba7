import { describe, expect, it } from 'vitest';
import type { Packet } from '../../../../src/workers/agent/agent.api';
import { applyPacket, createLiveAnswer } from '../../../../src/state/chat/answer-blocks';

function packet(obj: Packet['obj'], turnIndex = 0): Packet {
  return { placement: { turnIndex, tabIndex: 0, modelIndex: 0 }, obj };
}

describe('applyPacket', () => {
  it('times the reasoning from its start to the end of its section', () => {
    const answer = createLiveAnswer('a1', 0, 'model');
    applyPacket(answer, packet({ type: 'reasoning_start' }), 1_000);
    applyPacket(answer, packet({ type: 'reasoning_delta', text: 'hmm' }), 1_500);
    applyPacket(answer, packet({ type: 'section_end' }), 4_000);
    expect(answer.blocks[0]).toMatchObject({ kind: 'reasoning', text: 'hmm', isDone: true, durationMs: 3_000 });
  });

  it('collects each citation once, for the chips in the text', () => {
    const answer = createLiveAnswer('a1', 0, 'model');
    const citation = { number: 1, title: 'Example', url: 'https://example.com' };
    applyPacket(answer, packet({ type: 'citation', citation }));
    applyPacket(answer, packet({ type: 'citation', citation }));
    expect(answer.citations).toEqual([citation]);
  });

  it('marks a stopped answer as stopped and a failed one as error', () => {
    const stopped = createLiveAnswer('a1', 0, 'model');
    applyPacket(stopped, packet({ type: 'stop', reason: 'user_cancelled' }));
    expect(stopped.status).toBe('stopped');
    const failed = createLiveAnswer('a2', 1, 'model');
    applyPacket(failed, packet({ type: 'error', code: 'rate_limited', message: 'Slow down' }));
    applyPacket(failed, packet({ type: 'stop', reason: 'error' }));
    expect(failed).toMatchObject({ status: 'error', error: { code: 'rate_limited', message: 'Slow down' } });
  });
});
