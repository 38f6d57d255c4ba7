import { describe, expect, it } from 'vitest';
import {
  extractPromptVariables,
  fillPromptVariables,
  filterPrompts,
  readSlashQuery,
  type SavedPrompt,
} from '../../../../src/core/model';

function buildPrompt(title: string, text: string): SavedPrompt {
  return { id: title, title, text, createdAt: 0, updatedAt: 0 };
}

describe('saved prompts', () => {
  it('lists each variable once, in order of first appearance, spaces around names ignored', () => {
    expect(extractPromptVariables('Translate {{ text }} into {{language}}, then {{text}} again')).toEqual([
      'text',
      'language',
    ]);
    expect(extractPromptVariables('No {{}} or { {x} } here')).toEqual([]);
  });

  it('fills the variables it has values for and leaves the others as written', () => {
    expect(fillPromptVariables('Hi {{ name }}, from {{sender}}', { name: 'Ada' })).toBe('Hi Ada, from {{sender}}');
  });

  it('does not expand a variable that a value itself contains', () => {
    expect(fillPromptVariables('{{a}} and {{b}}', { a: '{{b}}', b: 'B' })).toBe('{{b}} and B');
  });

  it('ranks title matches before text matches and needs every word of the query', () => {
    const prompts = [
      buildPrompt('Summarise', 'Make a review short'),
      buildPrompt('Code review', 'Review {{code}}'),
      buildPrompt('Translate', 'Into {{language}}'),
    ];
    expect(filterPrompts(prompts, 'rev').map((p) => p.title)).toEqual(['Code review', 'Summarise']);
    expect(filterPrompts(prompts, 'code rev').map((p) => p.title)).toEqual(['Code review']);
    expect(filterPrompts(prompts, '').map((p) => p.title)).toEqual(['Code review', 'Summarise', 'Translate']);
  });

  it('reads a slash command only at the very start of a one-line draft', () => {
    expect(readSlashQuery('/rev')).toBe('rev');
    expect(readSlashQuery('/')).toBe('');
    expect(readSlashQuery('a /rev')).toBeNull();
    expect(readSlashQuery('/rev\nmore')).toBeNull();
  });
});
