import { beforeAll, describe, expect, it } from 'vitest';
import { prepareEnv } from '../../../../src/core/context/assemble-context';
import {
  buildFixedBlock,
  NO_FILES,
  type Block,
  type PartEnv,
} from '../../../../src/core/context/parts/part';
import { describeSkipped } from '../../../../src/core/context/render/markers';
import { trimToBudget } from '../../../../src/core/context/trim';
import type { ContextMessage } from '../../../../src/core/context/types';
import { createTokenCounter } from '../../../../src/core/tokens';
import { buildContextInput } from '../../../builders';

function buildConversationBlock(tokens: number, isRequired = false): Block {
  const message: ContextMessage = {
    kind: 'user',
    tokens,
    message: { role: 'user', content: `${tokens} tokens` },
  };
  return {
    tokens,
    messageCount: 1,
    part: isRequired ? 'newest_turn' : 'history',
    isRequired,
    isConversation: true,
    isUser: true,
    isUpload: false,
    files: NO_FILES,
    price: () => [message],
    render: () => [message],
  };
}

describe('trimToBudget', () => {
  let env: PartEnv;
  beforeAll(async () => {
    const prepared = prepareEnv(
      buildContextInput(
        { description: 'one question', chain: [{ role: 'user', text: 'Hello' }] },
        await createTokenCounter(['o200k_base']),
      ),
    );
    if (!prepared.ok) throw new Error(prepared.error.message);
    env = prepared.value;
  });

  it('drops one old block per round: a drop that joins two cuts frees a marker and can be enough', () => {
    const skipped = (count: number): number =>
      env.meter.priceMessage(env.meter.countText(describeSkipped(count)));
    const system = buildFixedBlock(
      { kind: 'system', tokens: 10, message: { role: 'system', content: 'S' } },
      'system',
    );
    // Head and tail keep [50, 5] and [20]; the 50-token block in the middle goes by strategy.
    const blocks = [
      system,
      buildConversationBlock(50),
      buildConversationBlock(5),
      buildConversationBlock(50),
      buildConversationBlock(20),
      buildConversationBlock(10, true),
    ];
    // Room for the tail, the 5-token head block and one marker over three messages, but not for
    // the oldest head block, nor for the two markers its cut leaves on each side of the 5.
    const available = 10 + 10 + 20 + skipped(3) + 1;
    expect(10 + 10 + 20 + 5 + 50).toBeGreaterThan(available);
    expect(10 + 10 + 20 + 5 + 2 * skipped(1)).toBeGreaterThan(available);

    const result = trimToBudget(
      blocks,
      { kind: 'head_and_tail', head: 2, tail: 2 },
      available,
      env,
    );

    if (!result.ok) throw new Error('expected the request to fit');
    expect(result.value.kept).toEqual([true, false, false, false, true, true]);
    expect(result.value.reasons).toEqual([
      undefined,
      'budget',
      'budget',
      'strategy',
      undefined,
      undefined,
    ]);
    expect(result.value.markers.map((entry) => entry.beforeIndex)).toEqual([1]);
    expect(result.value.markers[0]?.messages[0]?.message.content).toBe(describeSkipped(3));
    expect(result.value.totalTokens).toBe(10 + 10 + 20 + skipped(3));
  });
});
