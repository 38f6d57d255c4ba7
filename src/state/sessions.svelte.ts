import type { Session } from '../core/model';

/** Subscribes to the stored sessions (every tab's changes included); returns the unsubscribe. */
export type WatchSessions = (onValue: (sessions: Session[]) => void, onError: (error: Error) => void) => () => void;

/** The sidebar's list of chats, newest activity first, kept current by a live query. */
export class SessionsState {
  sessions = $state<Session[]>([]);
  error = $state<string | null>(null);
  private readonly unsubscribe: () => void;

  constructor(watch: WatchSessions) {
    this.unsubscribe = watch(
      (sessions) => {
        this.sessions = sessions.filter((s) => !s.isArchived);
        this.error = null;
      },
      (error) => {
        this.error = error.message;
      },
    );
  }

  dispose(): void {
    this.unsubscribe();
  }
}
