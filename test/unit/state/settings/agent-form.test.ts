import { describe, expect, it } from 'vitest';
import { asAgentId, asProviderId, createDefaultAgent } from '../../../../src/core/model';
import {
  applyFormValues,
  createBlankAgent,
  duplicateAgent,
  toFormValues,
  validateAgentForm,
} from '../../../../src/state/settings/agent-form';

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
      generation: { temperature: 0.4, topP: 0.95, maxOutputTokens: 900, reasoningEffort: 'high' as const, thinkingBudget: 2_048 },
      contextOrder: 'cache_friendly' as const,
      shouldSendPastReasoning: true,
    };
    expect(applyFormValues(agent, toFormValues(agent), 1)).toEqual(agent);
  });

  it('stores no generation settings when every field is left empty, and only the filled ones otherwise', () => {
    const base = { ...createBlankAgent(asAgentId('a1'), 1), generation: { temperature: 1 } };
    const values = toFormValues(base);
    const cleared = applyFormValues(base, { ...values, generation: { ...values.generation, temperature: '' } }, 2);
    expect(cleared).not.toHaveProperty('generation');
    const filled = applyFormValues(base, { ...values, generation: { ...values.generation, maxOutputTokens: '700' } }, 2);
    expect(filled.generation).toEqual({ temperature: 1, maxOutputTokens: 700 });
  });

  it('refuses generation settings out of range, saying what is allowed', () => {
    const values = toFormValues(createBlankAgent(asAgentId('a1'), 1));
    const withGeneration = (generation: Partial<typeof values.generation>) => ({
      ...values,
      generation: { ...values.generation, ...generation },
    });
    expect(validateAgentForm(withGeneration({ temperature: '2.5' }))).toMatch(/Temperature is a number from 0 to 2/);
    expect(validateAgentForm(withGeneration({ topP: '0' }))).toMatch(/Top-p/);
    expect(validateAgentForm(withGeneration({ maxOutputTokens: '12.5' }))).toMatch(/whole number of tokens/);
    expect(validateAgentForm(withGeneration({ thinkingBudget: '500' }))).toMatch(/0 \(no thinking\) or a whole number of tokens from 1,024/);
    expect(validateAgentForm(withGeneration({ thinkingBudget: '0', temperature: '0' }))).toBe('');
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
