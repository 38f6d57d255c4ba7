import { generateTitle } from '../../core/agent/generate-title';
import { fallbackTitle, type SendMessageRequest, type TurnResult } from '../../core/agent/process-message';
import type { MessageId, ProviderConfig, SessionId } from '../../core/model';
import type { LlmClient, MessageStore, ProviderStore, SessionStore } from '../../core/ports';

/** A title is a nicety: a slow provider must not hold a request open for long. */
const TITLE_TIMEOUT_MS = 20_000;

export interface NameSessionDeps {
  llm: LlmClient;
  sessions: SessionStore;
  messages: MessageStore;
  providers: ProviderStore;
}

/** A model-written title replaces the first words of the question, unless renamed meanwhile. */
export async function nameSession(turn: TurnResult, request: SendMessageRequest, deps: NameSessionDeps): Promise<void> {
  const [model] = request.models;
  const answerId = turn.assistantMessageIds[0];
  if (!model || !answerId) return;
  const provider = await deps.providers.get(model.providerId as ProviderConfig['id']);
  if (!provider) return;
  const chain = await deps.messages.loadChain(answerId as MessageId);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), TITLE_TIMEOUT_MS);
  try {
    const title = await generateTitle(chain, deps.llm, provider, model.modelId, controller.signal);
    const session = await deps.sessions.get(turn.sessionId as SessionId);
    const question = chain[0];
    if (!title || !session || question?.role !== 'user' || session.title !== fallbackTitle(question.text)) return;
    await deps.sessions.update(session.id, { title });
  } finally {
    clearTimeout(timer);
  }
}
