import type { Session } from '../../core/model';

export type SessionGroupName = 'Pinned' | 'Today' | 'Yesterday' | 'Previous 7 days' | 'Older';

export interface SessionGroup {
  name: SessionGroupName;
  sessions: Session[];
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** "Previous 7 days" covers the week before yesterday. */
const RECENT_DAYS = 7;

/** Midnight of the day `time` falls on, in the browser's time zone. */
function startOfLocalDay(time: number): number {
  const date = new Date(time);
  date.setHours(0, 0, 0, 0);
  return date.getTime();
}

/** The date group of one moment, relative to `now`, by local calendar days. */
export function groupNameFor(updatedAt: number, now: number): Exclude<SessionGroupName, 'Pinned'> {
  const today = startOfLocalDay(now);
  if (updatedAt >= today) return 'Today';
  // Calendar days, not 24-hour spans: a DST change still leaves yesterday as yesterday.
  const yesterday = startOfLocalDay(today - DAY_MS / 2);
  if (updatedAt >= yesterday) return 'Yesterday';
  const weekAgo = startOfLocalDay(yesterday - (RECENT_DAYS - 1) * DAY_MS - DAY_MS / 2);
  if (updatedAt >= weekAgo) return 'Previous 7 days';
  return 'Older';
}

/**
 * The sidebar's sections: pinned chats first, then recent chats by date, newest first inside
 * each; empty sections are left out.
 */
export function groupSessionsByDate(sessions: readonly Session[], now: number): SessionGroup[] {
  const order: SessionGroupName[] = ['Pinned', 'Today', 'Yesterday', 'Previous 7 days', 'Older'];
  const byName = new Map<SessionGroupName, Session[]>(order.map((name) => [name, []]));
  const newestFirst = [...sessions].sort((a, b) => b.updatedAt - a.updatedAt);
  for (const session of newestFirst) {
    const name = session.isPinned ? 'Pinned' : groupNameFor(session.updatedAt, now);
    byName.get(name)?.push(session);
  }
  return order.flatMap((name) => {
    const grouped = byName.get(name) ?? [];
    return grouped.length > 0 ? [{ name, sessions: grouped }] : [];
  });
}
