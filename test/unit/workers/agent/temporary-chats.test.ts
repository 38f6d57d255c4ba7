import { describe, expect, it } from 'vitest';
import { answerText, asFileId, asProjectId, asSessionId, type ChatMessageSimple } from '../../../../src/core/model';
import { createStores } from '../../../../src/storage';
import { scripts } from '../../../fakes/scripted-llm-client';
import { TestAgent } from '../../../fakes/test-agent';
import { fixtureInput, ingestAll } from '../rag-stores';

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

  it('started in a project, read its instructions and files and write nothing to it', async () => {
    const agent = await TestAgent.create();
    const projectId = asProjectId('project-temporary');
    let id = 0;
    const stores = createStores(agent.db, agent.clock, { newId: () => `project-file-${++id}` });
    await stores.projects.put({
      id: projectId,
      name: 'Shop',
      instructions: 'Always answer as the shop keeper of Lyon.',
      defaultModel: null,
      defaultAgentId: null,
      createdAt: 1,
      updatedAt: 1,
    });
    await ingestAll({ ...stores, tokens: agent.tokens, clock: agent.clock, ids: { newId: () => `project-file-${++id}` } }, projectId, [
      fixtureInput('inventory.csv'),
    ]);
    const before = await countRows(agent);

    const turn = await agent.script(scripts.text('Fourteen kettles.')).send('How many copper kettles?', { isTemporary: true, projectId });

    expect(turn.result.ok).toBe(true);
    const sent = JSON.stringify(agent.llm.requests[0]?.messages);
    expect(sent).toContain('Always answer as the shop keeper of Lyon.');
    expect(sent).toContain('Copper kettle');
    expect(await countRows(agent)).toEqual(before);
    const session = await agent.api.temporaryChat('getSession', [asSessionId(agent.currentSessionId ?? '')]);
    expect(session?.projectId).toBe(projectId);
    // The project's own chats (read from the database) do not list it.
    expect((await stores.sessions.list()).filter((listed) => listed.projectId === projectId)).toEqual([]);
  });

  it('get a model-written title that the page can show, kept in memory only', async () => {
    const agent = await TestAgent.create({ shouldGenerateTitles: true });
    const before = await countRows(agent);

    const turn = await agent
      .script(scripts.text('Paris is the capital of France.'), scripts.text('"Capital of France."'))
      .send('What is the capital of France? I need it for a quiz tonight with friends', { isTemporary: true });

    expect(turn.result.ok).toBe(true);
    const sessionId = agent.currentSessionId ?? '';
    expect(await agent.api.temporaryChatTitle(sessionId)).toBe('Capital of France');
    expect((await agent.api.temporaryChat('getSession', [asSessionId(sessionId)]))?.title).toBe('Capital of France');
    expect(await countRows(agent)).toEqual(before);
    expect(await agent.api.temporaryChatTitle('gone')).toBeNull();
  });

  it('compact in memory: the summary is listed, used by the next turn, undone, and saved with the chat', async () => {
    const agent = await TestAgent.create();
    const sessionId = await startTemporaryChat(agent);
    await agent.script(scripts.text('Madrid.')).send('And of Spain?');
    await agent.script(scripts.text('Rome.')).send('And of Italy?');
    const before = await countRows(agent);

    agent.script(scripts.text('They listed European capitals.'));
    const compacted = await agent.api.compactNow(sessionId);

    expect(compacted.ok && compacted.value?.text).toBe('They listed European capitals.');
    const listed = await agent.api.listSummaries(sessionId);
    expect(listed.ok && listed.value.map((summary) => summary.text)).toEqual(['They listed European capitals.']);
    await agent.script(scripts.text('Lisbon.')).send('And of Portugal?');
    expect(JSON.stringify(agent.llm.requests.at(-1)?.messages)).toContain('They listed European capitals.');
    expect(await countRows(agent)).toEqual(before);

    const undone = await agent.api.undoCompaction(sessionId);
    expect(undone.ok && undone.value?.undoneAt).toBeTypeOf('number');
    expect(await countRows(agent)).toEqual(before);

    const saved = await agent.api.saveTemporaryChat(sessionId);
    expect(saved.ok).toBe(true);
    const stores = createStores(agent.db, agent.clock, { newId: () => 'unused' });
    const summaries = await stores.summaries.listBySession(asSessionId(saved.ok ? saved.value.sessionId : ''));
    expect(summaries.map((summary) => [summary.text, summary.undoneAt !== undefined])).toEqual([['They listed European capitals.', true]]);
  });

  it('refuse a call that is not a store call', async () => {
    const agent = await TestAgent.create();
    expect(() => agent.api.temporaryChat('toString' as 'getSession', [asSessionId('x')])).toThrow(/no temporary chat call/);
  });
});
