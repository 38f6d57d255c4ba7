import { describe, expect, it } from 'vitest';
import { closeUnsavedAnswers } from '../../../../src/state/chat/unsaved-answers';
import { buildAssistantMessage, buildUserMessage } from '../../../builders';

describe('answers a failed run could not save', () => {
  it('shows the run’s answers still stored as streaming as interrupted', () => {
    const question = buildUserMessage({ id: 'q1', text: 'hello' });
    const unsaved = buildAssistantMessage({ id: 'a1', steps: [{ text: 'Half an ans' }], status: 'streaming' });
    const chain = closeUnsavedAnswers([question, unsaved], ['a1']);
    expect(chain.map((message) => (message.role === 'assistant' ? message.status : 'question'))).toEqual([
      'question',
      'interrupted',
    ]);
    expect(chain[0]).toBe(question);
  });

  it('leaves answers of other runs and finished answers as stored', () => {
    const otherTab = buildAssistantMessage({ id: 'a2', steps: [{ text: 'Another tab' }], status: 'streaming' });
    const failed = buildAssistantMessage({ id: 'a3', steps: [{ text: 'Failed' }], status: 'error' });
    const chain = [otherTab, failed];
    expect(closeUnsavedAnswers(chain, ['a3'])).toEqual(chain);
  });
});
