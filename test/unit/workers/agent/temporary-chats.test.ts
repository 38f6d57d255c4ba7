import { describe, expect, it } from 'vitest';
import { answerText, asFileId, asSessionId, type ChatMessageSimple } from '../../../../src/core/model';
import { createStores } from '../../../../src/storage';
import { scripts } from '../../../fakes/scripted-llm-client';
import { TestAgent } from '../../../fakes/test-agent';

/** Every row of every table: what a temporary chat must leave untouched. */
async function countRows(agent: TestAgent): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of agent.db.tables) counts[table.name] = await table.count();
  return counts;
}

function texts(chain: readonly ChatMessageSimple[]): string[] {
  return chain.map((message) => (message.role === 'user' ? message.text : answerText(message)));
}

/** A temporary chat of two turns, the second answered twice (two branches under it). */
async function startTemporaryChat(agent: TestAgent): Promise<string> {
  const first = await agent.script(scripts.text('Paris.')).send('Capital of France?', { isTemporary: true });
  expect(first.result.ok).toBe(true);
  const sessionId = agent.currentSessionId ?? '';
  await agent.script(scripts.text('Berlin.')).send('And of Germany?');
  const chain = await agent.api.temporaryChat('loadVisibleChain', [asSessionId(sessionId)]);
  await agent.script(scripts.text('Berlin, since 1990.')).send('', { retryOf: chain[2]?.id ?? '' });
  return sessionId;
}

describe('temporary chats in the agent worker', () => {
  it('answer through the agent loop and leave no row in the database', async () => {
    const agent = await TestAgent.create();
    const before = await countRows(agent);

    const sessionId = await startTemporaryChat(agent);

    expect(await countRows(agent)).toEqual(before);
    const chain = await agent.api.temporaryChat('loadVisibleChain', [asSessionId(sessionId)]);
    expect(texts(chain)).toEqual(['Capital of France?', 'Paris.', 'And of Germany?', 'Berlin, since 1990.']);
    // The second turn was sent with the first one as its history.
    expect(JSON.stringify(agent.llm.requests[1]?.messages)).toContain('Paris.');
    const siblings = await agent.api.temporaryChat('siblings', [chain[3]!.id]);
    expect(siblings.count).toBe(2);
  });

  it('preview the next request from the temporary chat itself', async () => {
    const agent = await TestAgent.create();
    const sessionId = await startTemporaryChat(agent);
    const preview = await agent.api.previewContext({ sessionId, text: 'next', model: { providerId: 'test-provider', modelId: 'gpt-4o-mini' } });
    expect(preview.ok && JSON.stringify(preview.value.messages)).toContain('Berlin, since 1990.');
  });

  it('save every branch as a saved chat with new ids, and forget the temporary one', async () => {
    const agent = await TestAgent.create();
    const sessionId = await startTemporaryChat(agent);
    const temporaryChain = await agent.api.temporaryChat('loadVisibleChain', [asSessionId(sessionId)]);

    const saved = await agent.api.saveTemporaryChat(sessionId);

    expect(saved.ok).toBe(true);
    const savedId = saved.ok ? saved.value.sessionId : '';
    expect(savedId).not.toBe(sessionId);
    const stores = createStores(agent.db, agent.clock, { newId: () => 'unused' });
    const session = await stores.sessions.get(asSessionId(savedId));
    expect(session?.title).toBe('Capital of France?');
    const chain = await stores.messages.loadVisibleChain(asSessionId(savedId));
    expect(texts(chain)).toEqual(texts(temporaryChain));
    expect(chain.map((message) => message.id)).not.toContain(temporaryChain[0]!.id);
    // The other answer to the second question came along as a branch.
    const siblings = await stores.messages.siblings(chain[3]!.id);
    expect(siblings.count).toBe(2);
    expect(await agent.db.messages.count()).toBe(5);
    expect(await agent.api.temporaryChat('getSession', [asSessionId(sessionId)])).toBeUndefined();

    // The saved chat goes on like any other.
    const next = await agent.script(scripts.text('Rome.')).send('And Italy?', { sessionId: savedId });
    expect(next.result.ok).toBe(true);
    expect(texts(await stores.messages.loadVisibleChain(asSessionId(savedId))).at(-1)).toBe('Rome.');
  });

  it('keep an attachment in memory, and write it with the chat when the chat is saved', async () => {
    const agent = await TestAgent.create();
    const before = await countRows(agent);
    const fileId = asFileId('notes-file');
    await agent.api.temporaryChat('putFile', [
      {
        id: fileId,
        projectId: null,
        name: 'notes.txt',
        mimeType: 'text/plain',
        sizeBytes: 12,
        hash: 'abc',
        blob: new Blob(['secret notes']),
        status: 'ready',
        text: 'secret notes',
        tokenCount: 3,
        createdAt: 1,
        updatedAt: 1,
      },
    ]);
    const attachment = { fileId, name: 'notes.txt', mimeType: 'text/plain', kind: 'text' as const, sizeBytes: 12, tokenCount: 3, status: 'ready' as const, text: 'secret notes' };
    const turn = await agent.script(scripts.text('Noted.')).send('Read this', { isTemporary: true, attachments: [attachment] });
    expect(turn.result.ok).toBe(true);
    expect(await countRows(agent)).toEqual(before);
    expect((await agent.api.temporaryChat('getFile', [fileId]))?.text).toBe('secret notes');

    const saved = await agent.api.saveTemporaryChat(agent.currentSessionId ?? '');

    expect(saved.ok).toBe(true);
    const stores = createStores(agent.db, agent.clock, { newId: () => 'unused' });
    const file = await stores.files.get(fileId);
    expect(file?.text).toBe('secret notes');
    expect(await file?.blob.text()).toBe('secret notes');
    const chain = await stores.messages.loadVisibleChain(asSessionId(saved.ok ? saved.value.sessionId : ''));
    expect(chain[0]?.role === 'user' ? chain[0].attachments.map((a) => a.fileId) : []).toEqual([fileId]);
    // The temporary copy went with the temporary chat.
    expect(await agent.api.temporaryChat('getFile', [fileId])).toBeUndefined();
  });

  it('forget a discarded temporary chat, and refuse to save one that is gone', async () => {
    const agent = await TestAgent.create();
    const sessionId = await startTemporaryChat(agent);

    await agent.api.discardTemporaryChat(sessionId);

    expect(await agent.api.temporaryChat('getSession', [asSessionId(sessionId)])).toBeUndefined();
    expect(await agent.api.saveTemporaryChat(sessionId)).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await agent.db.sessions.count()).toBe(0);
  });

  it('refuse a call that is not a store call', async () => {
    const agent = await TestAgent.create();
    expect(() => agent.api.temporaryChat('toString' as 'getSession', [asSessionId('x')])).toThrow(/no temporary chat call/);
  });
});
