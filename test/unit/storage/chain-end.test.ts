import { describe, expect, it } from 'vitest';
import { asMessageId } from '../../../src/core/model';
import { createMessageStore } from '../../../src/storage/message.store';
import { createSessionStore } from '../../../src/storage/session.store';
import {
  buildAssistantMessage,
  buildSession,
  buildUserMessage,
  createFrozenClock,
  openTestDb,
} from './storage-fixtures';

/**
 * Twelve turns, with the fourth question edited (a fork: the visible chain leaves the first line
 * there) and the tenth answer regenerated (a second fork).
 */
async function openForkedChat() {
  const db = await openTestDb();
  const clock = createFrozenClock();
  await createSessionStore(db, clock).create(buildSession());
  const messages = createMessageStore(db, clock);
  let parent: string | null = null;
  for (let turn = 0; turn < 12; turn++) {
    if (turn === 3) {
      await messages.put(buildUserMessage('q3-old', parent));
      await messages.put(buildAssistantMessage('a3-old', 'q3-old'));
    }
    await messages.put(buildUserMessage(`q${turn}`, parent));
    if (turn === 9) await messages.put(buildAssistantMessage('a9-old', `q${turn}`));
    await messages.put(buildAssistantMessage(`a${turn}`, `q${turn}`));
    parent = `a${turn}`;
  }
  return messages;
}

const ids = (chain: ReadonlyArray<{ id: string }>) => chain.map((message) => message.id);

describe('the end of a chain, for a long chat’s first screen', () => {
  it('reads the last messages of the chain, oldest first, across its forks', async () => {
    const messages = await openForkedChat();
    const leaf = asMessageId('a11');
    const whole = ids(await messages.loadChain(leaf));
    expect(whole).toHaveLength(24);
    expect(whole).not.toContain('q3-old');
    expect(whole).not.toContain('a9-old');
    for (const length of [1, 2, 3, 5, 6, 17, 18, 19, 23]) {
      const end = await messages.loadChainEnd(leaf, length);
      expect(ids(end.messages)).toEqual(whole.slice(-length));
      expect(end.isComplete).toBe(false);
    }
  });

  it('says the chain is complete once the end it read reaches the root', async () => {
    const messages = await openForkedChat();
    const leaf = asMessageId('a11');
    const whole = ids(await messages.loadChain(leaf));
    for (const length of [24, 25, 1000]) {
      const end = await messages.loadChainEnd(leaf, length);
      expect(ids(end.messages)).toEqual(whole);
      expect(end.isComplete).toBe(true);
    }
  });

  it('continues from the message above the first one read until the root', async () => {
    const messages = await openForkedChat();
    const leaf = asMessageId('a11');
    const whole = ids(await messages.loadChain(leaf));
    let shown = await messages.loadChainEnd(leaf, 5);
    let chain = shown.messages;
    while (!shown.isComplete) {
      shown = await messages.loadChainEnd(chain[0]?.parentId ?? asMessageId('none'), 7);
      chain = [...shown.messages, ...chain];
    }
    expect(ids(chain)).toEqual(whole);
  });

  it('says which message is missing when the chain is broken', async () => {
    const messages = await openForkedChat();
    await expect(messages.loadChainEnd(asMessageId('nowhere'), 3)).rejects.toThrow(
      /nowhere.*no longer exists/,
    );
  });
});
