import { asAgentId, type Agent } from '../model';

export const DEFAULT_AGENT_ID = asAgentId('default');

/**
 * The built-in agent: no custom prompt (in a project, the project's instructions act as its
 * custom agent prompt), no reminders, the automatic history strategy.
 */
export function createDefaultAgent(now: number): Agent {
  return {
    id: DEFAULT_AGENT_ID,
    name: 'Default',
    prompt: '',
    shouldReplaceSystemPrompt: false,
    reminders: [],
    defaultModel: null,
    enabledTools: [],
    historyStrategy: { kind: 'auto' },
    isBuiltIn: true,
    createdAt: now,
    updatedAt: now,
  };
}
