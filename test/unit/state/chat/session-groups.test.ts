import { describe, expect, it } from 'vitest';
import { asSessionId, type Session } from '../../../../src/core/model';
import { groupNameFor, groupSessionsByDate } from '../../../../src/state/chat/session-groups';

const at = (year: number, month: number, day: number, hour = 12): number => new Date(year, month - 1, day, hour).getTime();
const NOW = at(2025, 3, 20, 9);

function session(id: string, updatedAt: number, isPinned = false): Session {
  return {
    id: asSessionId(id),
    title: id,
    projectId: null,
    agentId: null,
    models: [],
    currentLeafId: null,
    isPinned,
    isArchived: false,
    createdAt: updatedAt,
    updatedAt,
    version: 0,
  };
}

describe('groupNameFor', () => {
  it('puts anything since local midnight under Today', () => {
    expect(groupNameFor(at(2025, 3, 20, 0), NOW)).toBe('Today');
  });
  it('puts the previous calendar day under Yesterday, even late at night', () => {
    expect(groupNameFor(at(2025, 3, 19, 23), NOW)).toBe('Yesterday');
    expect(groupNameFor(at(2025, 3, 19, 0), NOW)).toBe('Yesterday');
  });
  it('keeps the seven days before yesterday under Previous 7 days and older ones under Older', () => {
    expect(groupNameFor(at(2025, 3, 18), NOW)).toBe('Previous 7 days');
    expect(groupNameFor(at(2025, 3, 12, 0), NOW)).toBe('Previous 7 days');
    expect(groupNameFor(at(2025, 3, 11, 23), NOW)).toBe('Older');
  });
});

describe('groupSessionsByDate', () => {
  it('lists pinned chats first, then date groups newest first, leaving out empty groups', () => {
    const groups = groupSessionsByDate(
      [
        session('old', at(2024, 1, 1)),
        session('today-early', at(2025, 3, 20, 1)),
        session('pinned-old', at(2023, 5, 5), true),
        session('today-late', at(2025, 3, 20, 8)),
        session('yesterday', at(2025, 3, 19)),
      ],
      NOW,
    );
    expect(groups.map((g) => [g.name, g.sessions.map((s) => s.id)])).toEqual([
      ['Pinned', ['pinned-old']],
      ['Today', ['today-late', 'today-early']],
      ['Yesterday', ['yesterday']],
      ['Older', ['old']],
    ]);
  });
});
