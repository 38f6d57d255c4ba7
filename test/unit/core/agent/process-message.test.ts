import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { Tool } from '../../../../src/core/agent/tools/tool';
import { answerText } from '../../../../src/core/model';
import { createMessageStore } from '../../../../src/storage/message.store';
import { scripts } from '../../../fakes/scripted-llm-client';
import { TEST_PROVIDER_ID, TestAgent } from '../../../fakes/test-agent';

describe('processMessage through the agent host', () => {
  it('streams a plain answer as packets and saves both messages', async () => {
    const agent = await TestAgent.create();
    const turn = await agent.script(scripts.text('Hello there!')).send('hi');

    expect(turn.result.ok).toBe(true);
    const types = turn.packets.map((p) => p.obj.type);
    expect(types[0]).toBe('message_start');
    expect(types.filter((t) => t === 'message_delta').length).toBeGreaterThan(1);
    expect(types.slice(-2)).toEqual(['stop', 'overall_stop']);
    const streamed = turn.packets.flatMap((p) => (p.obj.type === 'message_delta' ? [p.obj.text] : [])).join('');
    expect(streamed).toBe('Hello there!');

    expect(turn.chain.map((m) => m.role)).toEqual(['user', 'assistant']);
    const [answer] = turn.answers;
    expect(answer?.status).toBe('complete');
    expect(answer && answerText(answer)).toBe('Hello there!');
    expect(answer?.usage).toEqual({ inputTokens: 10, outputTokens: 5 });
    expect(answer?.steps[0]?.textTokenCount).toBeGreaterThan(0);
  });

  it('sends the system prompt first and the user message last', async () => {
    const agent = await TestAgent.create();
    await agent.script(scripts.text('ok')).send('What is 2+2?');
    const [request] = agent.llm.requests;
    expect(request?.messages[0]?.role).toBe('system');
    expect(request?.messages.at(-1)).toEqual({ role: 'user', content: 'What is 2+2?' });
  });

  it('continues the same session on the next message, with the history in the request', async () => {
    const agent = await TestAgent.create();
    await agent.script(scripts.text('First answer')).send('first question');
    const second = await agent.script(scripts.text('Second answer')).send('second question');
    expect(second.chain.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    const request = agent.llm.requests[1];
    const texts = request?.messages.map((m) => JSON.stringify(m.content)) ?? [];
    expect(texts.some((t) => t.includes('First answer'))).toBe(true);
    expect(texts.at(-1)).toContain('second question');
  });

  it('saves the user message even when the model fails before answering', async () => {
    const agent = await TestAgent.create();
    const turn = await agent.script([{ type: 'throw', message: 'socket hang up' }]).send('keep me');
    expect(turn.result.ok).toBe(true);
    expect(turn.chain[0]).toMatchObject({ role: 'user', text: 'keep me' });
    expect(turn.answers[0]?.status).toBe('error');
    expect(turn.answers[0]?.error?.message).toContain('socket hang up');
    expect(turn.packets.some((p) => p.obj.type === 'error')).toBe(true);
  });

  it('keeps the partial answer when an error arrives mid-stream', async () => {
    const agent = await TestAgent.create();
    const turn = await agent.script(scripts.errorAfter('Partial ')).send('go');
    const [answer] = turn.answers;
    expect(answer?.status).toBe('error');
    expect(answer && answerText(answer)).toBe('Partial ');
    expect(answer?.error?.code).toBe('overloaded');
  });

  it('stops during text: the partial answer is saved as stopped and the stream closed', async () => {
    const agent = await TestAgent.create();
    const turn = await agent.script(scripts.hangAfter('Once upon a time')).stopAfter(2).send('story');
    const [answer] = turn.answers;
    expect(answer?.status).toBe('stopped');
    expect(answer?.stopReason).toBe('user_cancelled');
    expect(answer && answerText(answer)).toBe('Once upon a time');
    expect(agent.llm.openStreams).toBe(0);
    expect(turn.packets.at(-1)?.obj).toEqual({ type: 'overall_stop', reason: 'user_cancelled' });
  });

  it('stops during reasoning and keeps the reasoning so far', async () => {
    const agent = await TestAgent.create();
    const turn = await agent
      .script([{ type: 'reasoning-delta', text: 'Let me think' }, { type: 'hang' }])
      .stopAfter(3)
      .send('hard question');
    expect(turn.answers[0]?.status).toBe('stopped');
    expect(turn.answers[0]?.steps[0]?.reasoning?.text).toBe('Let me think');
  });

  it('answers an unknown tool with a readable tool result and lets the model continue', async () => {
    const agent = await TestAgent.create();
    const turn = await agent
      .script(scripts.toolCalls([{ id: 'call-1', name: 'launch_rockets', args: { count: 3 } }]), scripts.text('Sorry, I cannot.'))
      .send('launch');
    const [answer] = turn.answers;
    expect(answer?.status).toBe('complete');
    expect(answer?.steps).toHaveLength(2);
    const call = answer?.steps[0]?.toolCalls[0];
    expect(call).toMatchObject({ name: 'launch_rockets', status: 'error', argumentsText: '{"count":3}' });
    expect(call?.result?.content).toContain('no tool named "launch_rockets"');
    // The second request carries the call and its result, in that order.
    const second = agent.llm.requests[1]?.messages ?? [];
    const roles = second.map((m) => m.role);
    expect(roles.slice(-2)).toEqual(['assistant', 'tool']);
  });

  it('turns the documents a tool found into citations the answer can cite by number', async () => {
    const lookup: Tool<{ query: string }> = {
      name: 'lookup',
      description: 'Looks things up.',
      usage: 'Use it to find facts.',
      isSearch: true,
      inputSchema: z.object({ query: z.string() }),
      execute: ({ query }) =>
        Promise.resolve({
          kind: 'documents',
          emptyNotice: 'Nothing found.',
          documents: [
            { title: 'Handbook', contents: `All about ${query}.`, url: 'https://example.com/handbook' },
            { title: 'Roadmap', contents: 'Plans.' },
          ],
        }),
    };
    const agent = await TestAgent.create({ tools: [lookup] });
    const turn = await agent
      .script(scripts.toolCalls([{ id: 'c1', name: 'lookup', args: { query: 'leave' } }]), scripts.text('Per the handbook [1][[7]].', 1))
      .send('What is the leave policy?');
    const [answer] = turn.answers;
    expect(answer && answerText(answer)).toBe('Per the handbook [1].');
    expect(answer?.citations).toEqual([{ number: 1, title: 'Handbook', url: 'https://example.com/handbook' }]);
    const result = answer?.steps[0]?.toolCalls[0]?.result;
    expect(result?.content).toContain('{"document":1,"title":"Handbook"');
    expect(result?.documents?.map((d) => d.number)).toEqual([1, 2]);
    const order = turn.packets.map((p) => p.obj.type).filter((t) => t === 'citation' || t === 'message_delta');
    expect(order.indexOf('citation')).toBeLessThan(order.lastIndexOf('message_delta'));
    // The citation reminder follows a search in the second request.
    const second = agent.llm.requests[1]?.messages.at(-1);
    expect(JSON.stringify(second?.content)).toMatch(/cit/i);
  });

  it('answers malformed tool arguments with a tool result the model can read', async () => {
    const lookup: Tool<{ query: string }> = {
      name: 'lookup',
      description: 'Looks things up.',
      usage: 'Use it to find facts.',
      isSearch: false,
      inputSchema: z.object({ query: z.string() }),
      execute: () => Promise.resolve({ kind: 'text', content: 'never', isError: false }),
    };
    const agent = await TestAgent.create({ tools: [lookup] });
    const turn = await agent
      .script(
        scripts.toolCalls([
          { id: 'bad-json', name: 'lookup', args: '{"query": ' },
          { id: 'bad-type', name: 'lookup', args: { query: 42 } },
        ]),
        scripts.text('Done.'),
      )
      .send('search');
    const calls = turn.answers[0]?.steps[0]?.toolCalls ?? [];
    expect(calls.map((c) => c.status)).toEqual(['error', 'error']);
    expect(calls[0]?.result?.content).toContain('not valid JSON');
    expect(calls[1]?.result?.content).toContain('Invalid arguments for lookup: query');
    expect(turn.answers[0]?.status).toBe('complete');
  });

  it('stops during a tool: the running tool is cancelled and recorded, no orphan call', async () => {
    let sawAbort = false;
    const slow: Tool<Record<string, never>> = {
      name: 'slow',
      description: 'Takes a long time.',
      usage: 'Never.',
      isSearch: false,
      inputSchema: z.object({}),
      execute: (_input, { signal }) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            sawAbort = true;
            reject(new Error('aborted'));
          });
        }),
    };
    const agent = await TestAgent.create({ tools: [slow] });
    agent.tap((packet, api, runId) => {
      if (packet.obj.type === 'tool_call_start') void api.stop(runId);
    });
    const turn = await agent.script(scripts.toolCalls([{ id: 's1', name: 'slow', args: {} }])).send('go slow');
    expect(sawAbort).toBe(true);
    const [answer] = turn.answers;
    expect(answer?.status).toBe('stopped');
    const calls = answer?.steps[0]?.toolCalls ?? [];
    expect(calls.map((c) => [c.id, c.status, c.result?.isError])).toEqual([['s1', 'cancelled', true]]);
  });

  it('stops a runaway tool loop after six cycles, the last one offering no tools', async () => {
    const agent = await TestAgent.create();
    for (let i = 0; i < 6; i++) agent.script(scripts.toolCalls([{ id: `c${i}`, name: 'again', args: {} }]));
    const turn = await agent.send('loop forever');
    expect(agent.llm.requests).toHaveLength(6);
    expect(turn.answers[0]?.stopReason).toBe('max_cycles');
    expect(turn.answers[0]?.status).toBe('complete');
    expect(agent.llm.requests[5]?.tools).toEqual([]);
    const last = agent.llm.requests[5]?.messages.at(-1);
    expect(JSON.stringify(last?.content)).toMatch(/no tool|cannot call|final/i);
  });

  it('runs compare mode: one model failing does not stop the other, both saved as siblings', async () => {
    const agent = await TestAgent.create();
    await agent.addProvider({ models: ['model-a', 'model-b'] });
    agent.scriptFor('model-a', scripts.text('Answer from A')).scriptFor('model-b', scripts.errorAfter('B started'));
    const turn = await agent.send('compare', {
      models: [
        { providerId: TEST_PROVIDER_ID, modelId: 'model-a' },
        { providerId: TEST_PROVIDER_ID, modelId: 'model-b' },
      ],
    });
    expect(turn.answers.map((a) => a.status)).toEqual(['complete', 'error']);
    expect(new Set(turn.answers.map((a) => a.parentId)).size).toBe(1);
    expect(turn.packets.some((p) => p.obj.type === 'error' && p.placement.modelIndex === 1)).toBe(true);
    expect(turn.packets.some((p) => p.obj.type === 'error' && p.placement.modelIndex === 0)).toBe(false);
    const siblings = await createMessageStore(agent.db, agent.clock).children(
      turn.answers[0]!.sessionId,
      turn.answers[0]!.parentId,
    );
    expect(siblings.map((m) => m.id).sort()).toEqual(turn.answers.map((a) => a.id).sort());
  });

  it('keeps compared answers in the order of the models, also when they start in the same millisecond', async () => {
    // A frozen clock, and ids that sort in the reverse of the order they are made (random ids may).
    let id = 1_000;
    const agent = await TestAgent.create({ clockStepMs: 0, newId: () => `id-${--id}` });
    const models = ['model-a', 'model-b', 'model-c'];
    await agent.addProvider({ models });
    for (const model of models) agent.scriptFor(model, scripts.text(`Answer from ${model}`));
    const turn = await agent.send('compare', { models: models.map((modelId) => ({ providerId: TEST_PROVIDER_ID, modelId })) });
    const messages = createMessageStore(agent.db, agent.clock);
    const siblings = await messages.children(turn.answers[0]!.sessionId, turn.answers[0]!.parentId);
    expect(siblings.map((m) => (m.role === 'assistant' ? m.model?.modelId : m.role))).toEqual(models);
    const branches = await messages.siblings(turn.answers[2]!.id);
    expect(branches.index).toBe(2);
  });

  it('stops one model in compare mode: that answer is stopped, the other completes', async () => {
    const agent = await TestAgent.create();
    await agent.addProvider({ models: ['model-a', 'model-b'] });
    agent.scriptFor('model-a', scripts.text('Answer from A')).scriptFor('model-b', scripts.hangAfter('B started'));
    let isStopSent = false;
    agent.tap((packet, api, runId) => {
      // Model B hangs after its first text: only stopping it can end the turn.
      if (!isStopSent && packet.placement.modelIndex === 1 && packet.obj.type === 'message_delta') {
        isStopSent = true;
        void api.stopModel(runId, 1);
      }
    });
    const turn = await agent.send('compare', {
      models: [
        { providerId: TEST_PROVIDER_ID, modelId: 'model-a' },
        { providerId: TEST_PROVIDER_ID, modelId: 'model-b' },
      ],
    });
    expect(isStopSent).toBe(true);
    expect(turn.answers.map((a) => a.status)).toEqual(['complete', 'stopped']);
    expect(turn.answers.map((a) => a.stopReason)).toEqual(['completed', 'user_cancelled']);
    expect(turn.packets.at(-1)?.obj).toEqual({ type: 'overall_stop', reason: 'completed' });
  });

  it('checkpoints the partial answer while streaming, so a closed tab keeps it', async () => {
    const agent = await TestAgent.create();
    const messages = createMessageStore(agent.db, agent.clock);
    let assistantId = '';
    let seenWhileStreaming: string | undefined;
    agent.tap((packet, api, runId) => {
      if (packet.obj.type === 'message_start') assistantId = packet.obj.assistantMessageId;
      if (packet.obj.type !== 'message_delta' || packet.obj.text !== 'three ') return;
      void (async () => {
        // The stream went quiet after "three": the trailing checkpoint saves what came so far.
        expect(agent.scheduler.pendingCount).toBe(1);
        agent.scheduler.runPending();
        await vi.waitFor(async () => {
          const stored = await messages.get(assistantId as never);
          seenWhileStreaming = stored?.role === 'assistant' ? `${stored.status}:${answerText(stored)}` : undefined;
          expect(seenWhileStreaming).toContain('three');
        });
        await api.stop(runId);
      })();
    });
    const turn = await agent
      .script([
        { type: 'text-delta', text: 'one ' },
        { type: 'text-delta', text: 'two ' },
        { type: 'text-delta', text: 'three ' },
        { type: 'hang' },
      ])
      .send('count');
    expect(seenWhileStreaming).toBe('streaming:one two three ');
    expect(turn.answers[0]?.status).toBe('stopped');
  });

  it('starts the next turn from the session cache, and never from a stale copy after an edit', async () => {
    const agent = await TestAgent.create();
    await agent.script(scripts.text('First')).send('one');
    await agent.script(scripts.text('Second')).send('two');
    expect(await agent.api.sessionCacheStats()).toMatchObject({ hits: 1, misses: 0 });

    // The UI (or another tab) pins the first answer: the session version moves on.
    const messages = createMessageStore(agent.db, agent.clock);
    const [, firstAnswer] = await agent.chain();
    await messages.put({ ...firstAnswer!, isExcluded: true });
    await agent.script(scripts.text('Third')).send('three');
    expect(await agent.api.sessionCacheStats()).toMatchObject({ hits: 1, misses: 1 });
    const sent = JSON.stringify(agent.llm.requests[2]?.messages);
    expect(sent).not.toContain('First');
    expect(sent).toContain('Second');
  });

  it('refuses an invalid request with a clear error and saves nothing', async () => {
    const agent = await TestAgent.create();
    const turn = await agent.send('   ');
    expect(turn.result).toEqual({ ok: false, error: { code: 'invalid_request', message: 'The message is empty.' } });
    expect(await agent.db.messages.count()).toBe(0);
  });
});
