import { describe, expect, it } from 'vitest';
import { buildSystemPrompt } from '../../../../../src/core/context/system-prompt/registry';
import type { SectionContext } from '../../../../../src/core/context/system-prompt/section';

const MORNING = Date.UTC(2026, 2, 14, 8, 5);
const EVENING = Date.UTC(2026, 2, 14, 19, 47);
const context = (isCompact: boolean): SectionContext => ({
  tools: [],
  hasSearchTool: false,
  shouldExplainCitations: false,
  hasReminder: false,
  isCompact,
});
const render = (isCompact: boolean, now: number) => buildSystemPrompt(context(isCompact), null, { now, timeZone: 'UTC' });

describe('the compact system prompt of a model running in the browser', () => {
  it('is a fraction of the full one', () => {
    expect(render(true, MORNING).length).toBeLessThan(render(false, MORNING).length / 3);
  });

  it('reads the same all day, so the next turn can reuse the cached prompt', () => {
    expect(render(true, EVENING)).toBe(render(true, MORNING));
    expect(render(true, MORNING)).toContain('2026');
    // The full prompt names the time of day, and so changes from one turn to the next.
    expect(render(false, EVENING)).not.toBe(render(false, MORNING));
  });
});
