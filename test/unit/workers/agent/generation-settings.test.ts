import { describe, expect, it } from 'vitest';
import { INPUT_BUDGET_RATIO } from '../../../../src/core/context';
import { asAgentId, asSessionId, type Agent, type Session } from '../../../../src/core/model';
import { createStores } from '../../../../src/storage';
import { createRealClientAgent } from '../../../reliability/support/real-client-agent';
import { buildProvider, createStubFetch, frameFixture } from '../../llm/replay';

/**
 * A turn through the real agent host and LLM client: the agent's generation settings, the
 * chat's override on top, and the answer length held to what the window leaves.
 */

const WINDOW = 2_600;
const MODEL = 'gpt-4.1';

async function setUp(agentSettings: Partial<Agent>, override: Session['generationOverride']) {
  const provider = buildProvider('openai', {
    models: [MODEL],
    contextWindowOverrides: { [MODEL]: WINDOW },
  });
  const reply = frameFixture('openai-chat-text.sse', 'openai-chat');
  const stub = createStubFetch(() => ({ body: reply }));
  const agent = await createRealClientAgent({ provider, llmDeps: { fetch: stub.fetch } });
  const now = 1;
  const stores = createStores(agent.db, { now: () => now, timeZone: () => 'UTC' }, { newId: () => 'unused' });
  const agentRow: Agent = {
    id: asAgentId('writer'),
    name: 'Writer',
    prompt: '',
    shouldReplaceSystemPrompt: false,
    reminders: [],
    defaultModel: null,
    enabledTools: [],
    historyStrategy: { kind: 'auto' },
    isBuiltIn: false,
    createdAt: now,
    updatedAt: now,
    ...agentSettings,
  };
  await stores.agents.put(agentRow);
  const session: Session = {
    id: asSessionId('chat-1'),
    title: 'Chat',
    projectId: null,
    agentId: agentRow.id,
    models: [{ providerId: provider.id, modelId: MODEL }],
    currentLeafId: null,
    isPinned: false,
    isArchived: false,
    createdAt: now,
    updatedAt: now,
    version: 0,
    ...(override ? { generationOverride: override } : {}),
  };
  await stores.sessions.create(session);
  return { agent, stub, provider, session };
}

describe('generation settings on a real turn', () => {
  it("sends the chat's temperature over the agent's and keeps the agent's top-p", async () => {
    const { agent, stub } = await setUp(
      { generation: { temperature: 0.9, topP: 0.8 } },
      { temperature: 0.1 },
    );
    const turn = await agent.send('Hello', { sessionId: 'chat-1' });
    expect(turn.answer?.status).toBe('complete');
    const body = stub.requests[0]?.body as Record<string, unknown>;
    expect(body.temperature).toBe(0.1);
    expect(body.top_p).toBe(0.8);
  });

  it('asks for no more output than the window leaves after the prompt', async () => {
    const { agent, stub, provider } = await setUp({ generation: { maxOutputTokens: 2_048 } }, undefined);
    // A question long enough that 2,048 answer tokens would not fit beside it in 2,600.
    const question = `Summarise this: ${'the quick brown fox jumps over the lazy dog '.repeat(90)}`;
    const preview = await agent.api.previewContext({
      sessionId: 'chat-1',
      model: { providerId: provider.id, modelId: MODEL },
      text: question,
    });
    if (!preview.ok) throw new Error(preview.error.message);
    const prompt = preview.value.totalTokens + preview.value.budget.toolTokens;
    await agent.send(question, { sessionId: 'chat-1' });
    const body = stub.requests[0]?.body as Record<string, unknown>;
    const asked = Number(body.max_completion_tokens ?? body.max_tokens);
    expect(asked).toBe(WINDOW - Math.ceil(prompt / INPUT_BUDGET_RATIO));
    expect(asked).toBeLessThan(2_048);
    expect(asked + prompt).toBeLessThanOrEqual(WINDOW);
    // Never less than the context kept free for the answer.
    expect(asked).toBeGreaterThanOrEqual(preview.value.budget.reservedOutputTokens);
  });

  it('reserves the answer length the chat sets, so the inspector shows it', async () => {
    const { agent, provider } = await setUp({}, { maxOutputTokens: 600 });
    const preview = await agent.api.previewContext({
      sessionId: 'chat-1',
      model: { providerId: provider.id, modelId: MODEL },
      text: 'Hello',
    });
    if (!preview.ok) throw new Error(preview.error.message);
    expect(preview.value.budget.reservedOutputTokens).toBe(600);
  });
});
