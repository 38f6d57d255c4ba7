import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SYSTEM_PROMPT,
  expandPlaceholders,
  formatCurrentDate,
  FOLLOW_UPS_MARKER,
  removeDisplayArtifacts,
} from '../../../../src/core/context';

describe('placeholders', () => {
  const now = Date.parse('2026-11-21T10:00:00Z');

  it('formats the date in the user time zone like "Saturday November 21, 2026"', () => {
    expect(formatCurrentDate(now, 'Europe/Paris')).toBe('Saturday November 21, 2026');
  });

  it('follows the time zone across midnight', () => {
    const lateUtc = Date.parse('2026-11-21T23:30:00Z');
    expect(formatCurrentDate(lateUtc, 'Europe/Paris')).toBe('Sunday November 22, 2026');
    expect(formatCurrentDate(lateUtc, 'America/New_York')).toBe('Saturday November 21, 2026');
  });

  it('expands the date, date-time and user name, and leaves unknown placeholders as written', () => {
    const text = expandPlaceholders(
      '{{ user.name }} on {{CURRENT_DATE}} at {{CURRENT_DATETIME}} {{other}}',
      {
        now,
        timeZone: 'Europe/Paris',
        userName: 'Ada',
      },
    );
    expect(text).toBe(
      'Ada on Saturday November 21, 2026 at Saturday November 21, 2026, 11:00 (Europe/Paris) {{other}}',
    );
  });
});

describe('default system prompt', () => {
  it('starts with the standard intro and keeps the date placeholder for editing', () => {
    expect(
      DEFAULT_SYSTEM_PROMPT.startsWith(
        'You are a highly capable, thoughtful, and precise assistant.',
      ),
    ).toBe(true);
    expect(DEFAULT_SYSTEM_PROMPT).toContain('{{CURRENT_DATETIME}}');
  });

  it('does not mention tools, which are described only when offered', () => {
    expect(DEFAULT_SYSTEM_PROMPT).not.toMatch(/# Tools/);
  });
});

describe('removeDisplayArtifacts', () => {
  it('turns rendered citation links back into the bare [n] the model wrote', () => {
    expect(
      removeDisplayArtifacts('Canberra [[1]](https://a.example/x) and [2](https://b.example).'),
    ).toBe('Canberra [1] and [2].');
  });

  it('drops follow-up suggestions appended for display', () => {
    expect(removeDisplayArtifacts(`Answer.\n\n${FOLLOW_UPS_MARKER}\n- More?`)).toBe('Answer.');
  });

  it('leaves ordinary Markdown links alone', () => {
    expect(removeDisplayArtifacts('See [the docs](https://docs.example).')).toBe(
      'See [the docs](https://docs.example).',
    );
  });
});
