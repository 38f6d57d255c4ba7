import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { Tool } from '../../../../src/core/agent/tools/tool';
import { cleanTitle } from '../../../../src/core/agent/generate-title';
import { answerText } from '../../../../src/core/model';
import { createMessageStore } from '../../../../src/storage/message.store';
import { createSessionStore } from '../../../../src/storage/session.store';
import { createMemorySessionLocks } from '../../../../src/workers/agent/session-locks';
import { TOKEN_CALIBRATION_SETTING } from '../../../../src/workers/agent/agent-host';
import { createStores } from '../../../../src/storage';
import { scripts } from '../../../fakes/scripted-llm-client';
import { TestAgent } from '../../../fakes/test-agent';
import { createManualRelayChannel } from '../../../fakes/manual-relay-channel';

describe('the agent host', () => {
  it('runs one turn per session: a second tab gets session_busy instead of a second run', async () => {
    const locks = createMemorySessionLocks();
    const first = await TestAgent.create({ locks });
    await first.script(scripts.text('hello')).send('start');
    const second = await TestAgent.create({ locks, db: first.db });

    let busy: unknown;
    first.tap((packet, api, runId) => {
      if (packet.obj.type === 'message_delta' && busy === undefined) {
        busy = 'pending';
        void second.api
          .send('other-tab', { sessionId: first.currentSessionId, text: 'me too', models: [{ providerId: 'test-provider', modelId: 'gpt-4o-mini' }] }, () => undefined)
          .then(async (result) => {
            busy = result;
            await api.stop(runId);
          });
      }
    });
    const turn = await first.script(scripts.hangAfter('working')).send('long task');
    expect(busy).toMatchObject({ ok: false, error: { code: 'session_busy' } });
    expect(turn.answers[0]?.status).toBe('stopped');
    expect(second.llm.requests).toHaveLength(0);
    // Once the first run ended, the session is free again.
    const after = await second.script(scripts.text('now me')).send('me too', { sessionId: first.currentSessionId });
    expect(after.result.ok).toBe(true);
  });

  it('marks answers left streaming by a closed tab as interrupted, but not a running one', async () => {
    const locks = createMemorySessionLocks();
    const agent = await TestAgent.create({ locks });
    await agent.script(scripts.text('done')).send('first');
    const messages = createMessageStore(agent.db, agent.clock);
    const [, answer] = await agent.chain();
    // A tab closed mid-stream left this row behind.
    await messages.put({ ...answer!, status: 'streaming', stopReason: undefined } as typeof answer & object);
    const orphan = await messages.get(answer!.id);
    expect(orphan?.role === 'assistant' && orphan.status).toBe('streaming');

    const release = await locks.tryAcquire(answer!.sessionId);
    expect(await agent.api.recoverInterrupted()).toBe(0);
    release?.();
    expect(await agent.api.recoverInterrupted()).toBe(1);
    const recovered = await messages.get(answer!.id);
    expect(recovered).toMatchObject({ status: 'interrupted', stopReason: 'interrupted' });
    expect(recovered?.role === 'assistant' && answerText(recovered)).toBe('done');
  });

  it('answers a user message again as a sibling (regenerate / retry)', async () => {
    const agent = await TestAgent.create();
    const first = await agent.script(scripts.text('Answer one')).send('question');
    const userId = first.chain[0]!.id;
    const retry = await agent.script(scripts.text('Answer two')).send('', { retryOf: userId });
    expect(retry.result.ok).toBe(true);
    expect(retry.chain.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(retry.answers[0] && answerText(retry.answers[0])).toBe('Answer two');
    const siblings = await createMessageStore(agent.db, agent.clock).children(first.chain[0]!.sessionId, userId);
    expect(siblings).toHaveLength(2);
    // The retried request ends with the same question, once.
    const sent = agent.llm.requests[1]?.messages.filter((m) => m.role === 'user' && JSON.stringify(m.content).includes('question'));
    expect(sent).toHaveLength(1);
  });

  it('names a new chat with a short model-written title after the first answer', async () => {
    const agent = await TestAgent.create({ shouldGenerateTitles: true });
    const turn = await agent
      .script(scripts.text('Paris is the capital of France.'), scripts.text('"Capital of France."'))
      .send('What is the capital of France? I need it for a quiz tonight with friends');
    const sessions = createSessionStore(agent.db, agent.clock);
    await vi.waitFor(async () => {
      const session = await sessions.get(turn.answers[0]!.sessionId);
      expect(session?.title).toBe('Capital of France');
    });
    const titleRequest = agent.llm.requests[1];
    expect(titleRequest?.tools).toEqual([]);
    expect(JSON.stringify(titleRequest?.messages)).toContain('Paris is the capital');
  });

  it('keeps the first words of the question as the title when the title call fails', async () => {
    const agent = await TestAgent.create({ shouldGenerateTitles: true });
    const turn = await agent.script(scripts.text('Answer'), scripts.errorAfter('')).send('Explain quantum tunnelling simply');
    const sessions = createSessionStore(agent.db, agent.clock);
    await vi.waitFor(() => expect(agent.llm.requests).toHaveLength(2));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await sessions.get(turn.answers[0]!.sessionId))?.title).toBe('Explain quantum tunnelling simply');
  });
});

describe('the last request', () => {
  it('is the final request of the turn exactly as the model received it, recorded when sent', async () => {
    const lookup: Tool<{ query: string }> = {
      name: 'lookup',
      description: 'Looks things up.',
      usage: 'Use it to find facts.',
      isSearch: false,
      inputSchema: z.object({ query: z.string() }),
      execute: ({ query }) => Promise.resolve({ kind: 'text', content: `Found ${query}.`, isError: false }),
    };
    const agent = await TestAgent.create({ tools: [lookup] });
    const turn = await agent
      .script(scripts.toolCalls([{ id: 'c1', name: 'lookup', args: { query: 'leave' } }]), scripts.text('Done.'))
      .send('What is the leave policy?');
    expect(agent.llm.requests).toHaveLength(2);
    const last = await agent.api.lastRequest(turn.answers[0]!.parentId!);
    expect(last.ok).toBe(true);
    if (!last.ok) return;
    // The tool step is in it: this is the second request, not a recomputed first one.
    expect(last.value.messages.map((m) => m.message)).toEqual(agent.llm.requests[1]?.messages);

    const unknown = await agent.api.lastRequest('never-sent');
    expect(unknown).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });
});

describe('usage records and token calibration', () => {
  it('records each answer\'s usage and learns a factor for a model whose tokenizer we lack', async () => {
    const agent = await TestAgent.create();
    await agent.addProvider({ models: ['mystery-model'] });
    const mystery = { providerId: 'test-provider', modelId: 'mystery-model' };
    // Our estimate of the first request is a few hundred tokens; the provider reports 2,000.
    const script = scripts.text('ok');
    const withUsage = script.map((item) =>
      item.type === 'usage' ? { ...item, usage: { inputTokens: 2_000, outputTokens: 3 } } : item,
    );
    const question = `How many tokens is this? ${'Some words to count. '.repeat(60)}`;
    const turn = await agent.script(withUsage).send(question, { models: [mystery] });
    const stores = createStores(agent.db, agent.clock, { newId: () => 'u1' });
    const records = await stores.usage.listBySession(turn.answers[0]!.sessionId);
    expect(records).toEqual([
      expect.objectContaining({ messageId: turn.answers[0]!.id, usage: { inputTokens: 2_000, outputTokens: 3 } }),
    ]);
    await vi.waitFor(async () => {
      const factors = await stores.settings.get<Record<string, number>>(TOKEN_CALIBRATION_SETTING);
      expect(factors?.['test-provider/mystery-model']).toBeGreaterThan(1);
    });

    // The next request is estimated with the learned factor: a larger context for the same text.
    const before = await agent.api.previewContext({
      sessionId: turn.answers[0]!.sessionId,
      text: 'next',
      model: mystery,
    });
    await stores.settings.set(TOKEN_CALIBRATION_SETTING, {});
    const neutral = await agent.api.previewContext({
      sessionId: turn.answers[0]!.sessionId,
      text: 'next',
      model: mystery,
    });
    expect([before, neutral].map((r) => (r.ok ? 'ok' : r.error.message))).toEqual(['ok', 'ok']);
    if (before.ok && neutral.ok) expect(before.value.totalTokens).toBeGreaterThan(neutral.value.totalTokens);
  });

  it('leaves models with a known tokenizer uncalibrated', async () => {
    const agent = await TestAgent.create();
    const withUsage = scripts.text('ok').map((item) =>
      item.type === 'usage' ? { ...item, usage: { inputTokens: 5_000, outputTokens: 3 } } : item,
    );
    await agent.script(withUsage).send(`Count me. ${'More words to count. '.repeat(60)}`);
    const stores = createStores(agent.db, agent.clock, { newId: () => 'u1' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await stores.settings.get(TOKEN_CALIBRATION_SETTING)).toBeUndefined();
  });
});

describe('cleanTitle', () => {
  it.each([
    ['"Capital of France."', 'Capital of France'],
    ['Title: Trip planning', 'Trip planning'],
    ['**Budget review**\nExtra line', 'Budget review'],
    ['   ', null],
  ])('cleans %j to %j', (raw, expected) => {
    expect(cleanTitle(raw)).toBe(expected);
  });
});

describe('the agent host and other tabs', () => {
  it('relays a run to other tabs in numbered batches, and says it ended once the answer is saved', async () => {
    const relay = createManualRelayChannel();
    const agent = await TestAgent.create({ relay: relay.channel });
    const messages = createMessageStore(agent.db, agent.clock);
    let statusAtEnd: Promise<string | undefined> | undefined;
    const post = relay.channel.post.bind(relay.channel);
    relay.channel.post = (message) => {
      if (message.kind === 'end') {
        const [answerId] = relay.posted.flatMap((m) =>
          m.kind === 'packets' ? m.packets.flatMap((p) => (p.obj.type === 'message_start' ? [p.obj.assistantMessageId] : [])) : [],
        );
        statusAtEnd = messages.get(answerId as never).then((m) => (m?.role === 'assistant' ? m.status : undefined));
      }
      post(message);
    };
    agent.tap((packet, api, runId) => {
      if (packet.obj.type === 'message_delta') void api.stop(runId);
    });
    const turn = await agent.script(scripts.hangAfter('Partial answer')).send('question');

    const batches = relay.posted.filter((m) => m.kind === 'packets');
    expect(batches.map((m) => m.seq)).toEqual(batches.map((_, index) => index + 1));
    expect(new Set(relay.posted.map((m) => ('sessionId' in m ? m.sessionId : null)))).toEqual(new Set([agent.currentSessionId]));
    expect(batches.flatMap((m) => m.packets)).toEqual(turn.packets);
    expect(relay.posted.at(-1)?.kind).toBe('end');
    expect(await statusAtEnd).toBe('stopped');
  });

  it('stops a run when another tab asks to stop its chat, or when its chat is deleted', async () => {
    const relay = createManualRelayChannel();
    const agent = await TestAgent.create({ relay: relay.channel });
    await agent.script(scripts.text('hello')).send('start');
    const sessionId = agent.currentSessionId as string;
    agent.tap((packet) => {
      if (packet.obj.type === 'message_delta') relay.deliverToHost({ kind: 'stop', sessionId });
    });
    const stopped = await agent.script(scripts.hangAfter('working')).send('long task');
    expect(stopped.answers[0]?.status).toBe('stopped');

    const sessions = createSessionStore(agent.db, agent.clock);
    let deletion: Promise<void> | undefined;
    agent.tap((packet) => {
      if (packet.obj.type === 'message_delta') deletion ??= sessions.delete(sessionId as never);
    });
    const deleted = await agent.script(scripts.hangAfter('working again')).send('another long task');
    await deletion;
    // The hanging request was aborted (else the turn would never end) and nothing was written
    // into the deleted chat.
    expect(deleted.result.ok).toBe(false);
    expect(await agent.db.messages.where('sessionId').equals(sessionId).count()).toBe(0);
  });
});
