import { describe, expect, it } from 'vitest';
import { asAgentId, asProviderId, createDefaultAgent } from '../../../src/core/model';
import {
  applyFormValues,
  createBlankAgent,
  duplicateAgent,
  toFormValues,
  validateAgentForm,
} from '../../../src/state/agent-form';

describe('the agent form', () => {
  it('round-trips every field of an agent', () => {
    const agent = {
      ...createBlankAgent(asAgentId('a1'), 1),
      name: 'Reviewer',
      prompt: 'Review code.',
      shouldReplaceSystemPrompt: true,
      reminders: ['Be brief.', 'Cite lines.'],
      defaultModel: { providerId: asProviderId('p1'), modelId: 'gpt-4o' },
      enabledTools: ['web_search', 'mcp:github'],
      historyStrategy: { kind: 'head_and_tail' as const, head: 1, tail: 6 },
    };
    expect(applyFormValues(agent, toFormValues(agent), 1)).toEqual(agent);
  });

  it('builds each history strategy from its own fields and ignores the others', () => {
    const values = toFormValues(createBlankAgent(asAgentId('a1'), 1));
    const base = createBlankAgent(asAgentId('a1'), 1);
    expect(applyFormValues(base, { ...values, strategyKind: 'buffered', bufferSize: 12 }, 2).historyStrategy).toEqual({ kind: 'buffered', size: 12 });
    expect(applyFormValues(base, { ...values, strategyKind: 'token_limited', maxTokens: 4000 }, 2).historyStrategy).toEqual({ kind: 'token_limited', maxTokens: 4000 });
    expect(applyFormValues(base, { ...values, strategyKind: 'unbounded' }, 2).historyStrategy).toEqual({ kind: 'unbounded' });
  });

  it('drops blank reminder lines and repeated tools', () => {
    const base = createBlankAgent(asAgentId('a1'), 1);
    const values = { ...toFormValues(base), reminders: ' one \n\n two ', enabledTools: ['open_url'], mcpTools: 'open_url\nmcp:fs' };
    const agent = applyFormValues(base, values, 2);
    expect(agent.reminders).toEqual(['one', 'two']);
    expect(agent.enabledTools).toEqual(['open_url', 'mcp:fs']);
  });

  it('refuses an empty name and an empty replacing prompt', () => {
    const values = toFormValues(createBlankAgent(asAgentId('a1'), 1));
    expect(validateAgentForm({ ...values, name: ' ' })).toMatch(/name/);
    expect(validateAgentForm({ ...values, shouldReplaceSystemPrompt: true, prompt: '' })).toMatch(/cannot be empty/);
    expect(validateAgentForm(values)).toBe('');
  });

  it('duplicates the built-in agent as an editable custom agent', () => {
    const copy = duplicateAgent(createDefaultAgent(1), asAgentId('copy'), 5);
    expect(copy).toMatchObject({ id: 'copy', name: 'Default (copy)', isBuiltIn: false, createdAt: 5 });
  });
});
