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

/** q1 → a1 → q2 → a2, and a second answer a2b to q2 (the current leaf). */
async function openChat() {
  const db = await openTestDb();
  const clock = createFrozenClock();
  await createSessionStore(db, clock).create(buildSession());
  const messages = createMessageStore(db, clock);
  await messages.put(buildUserMessage('q1', null));
  await messages.put(buildAssistantMessage('a1', 'q1'));
  await messages.put(buildUserMessage('q2', 'a1'));
  await messages.put(buildAssistantMessage('a2', 'q2'));
  await messages.put(buildAssistantMessage('a2b', 'q2'));
  return messages;
}

const ids = (chain: ReadonlyArray<{ id: string }> | null) => chain?.map((message) => message.id) ?? null;

describe('the end of a chain below a message already shown', () => {
  it('reads the messages below the ancestor, oldest first', async () => {
    const messages = await openChat();
    expect(ids(await messages.loadChainBelow(asMessageId('a2b'), asMessageId('a1'), 2))).toEqual(['q2', 'a2b']);
    expect(ids(await messages.loadChainBelow(asMessageId('a2b'), asMessageId('q2'), 2))).toEqual(['a2b']);
    expect(ids(await messages.loadChainBelow(asMessageId('a2b'), asMessageId('a2b'), 2))).toEqual([]);
  });

  it('reads from the root when there is no ancestor, the whole chain being short enough', async () => {
    const messages = await openChat();
    expect(ids(await messages.loadChainBelow(asMessageId('a1'), null, 2))).toEqual(['q1', 'a1']);
    expect(await messages.loadChainBelow(asMessageId('a2b'), null, 2)).toBeNull();
  });

  it('answers null when the ancestor is on another branch or further up than allowed', async () => {
    const messages = await openChat();
    expect(await messages.loadChainBelow(asMessageId('a2b'), asMessageId('a2'), 4)).toBeNull();
    expect(await messages.loadChainBelow(asMessageId('a2b'), asMessageId('q1'), 2)).toBeNull();
    expect(ids(await messages.loadChainBelow(asMessageId('a2b'), asMessageId('q1'), 3))).toEqual(['a1', 'q2', 'a2b']);
  });

  it('says which message is missing when the chain is broken', async () => {
    const messages = await openChat();
    await messages.deleteBranch(asMessageId('a1'));
    await expect(messages.loadChainBelow(asMessageId('q2'), asMessageId('q1'), 2)).rejects.toThrow(/no longer exists/);
  });
});
