/**
 * One run per session across tabs (and workers): a Web Lock per session, held for the whole
 * turn. A second tab asking for a running session gets null instead of starting another run.
 */
export interface SessionLocks {
  /** The release function, or null when another run holds the session. */
  tryAcquire(sessionId: string): Promise<(() => void) | null>;
  /** Whether any tab holds the session's lock right now (a turn is really running). */
  isHeld(sessionId: string): Promise<boolean>;
}

/** The Web Lock a run holds on its session (tabs waiting for a run to end ask for it too). */
export const sessionLockName = (sessionId: string): string => `carrel:session:${sessionId}`;

/** Web Locks: shared by every tab and worker of the origin, released if a tab dies. */
export function createWebSessionLocks(locks: LockManager): SessionLocks {
  return {
    tryAcquire(sessionId) {
      return new Promise((resolve, reject) => {
        locks
          .request(sessionLockName(sessionId), { ifAvailable: true }, (lock) => {
            if (!lock) {
              resolve(null);
              return undefined;
            }
            // Held until the returned promise settles, i.e. until the caller releases it.
            return new Promise<void>((release) => resolve(release));
          })
          .catch(reject);
      });
    },
    async isHeld(sessionId) {
      const snapshot = await locks.query();
      return (snapshot.held ?? []).some((lock) => lock.name === sessionLockName(sessionId));
    },
  };
}

/** In one JavaScript realm only: for tests and for browsers without Web Locks. */
export function createMemorySessionLocks(): SessionLocks {
  const held = new Set<string>();
  return {
    tryAcquire(sessionId) {
      if (held.has(sessionId)) return Promise.resolve(null);
      held.add(sessionId);
      return Promise.resolve(() => {
        held.delete(sessionId);
      });
    },
    isHeld: (sessionId) => Promise.resolve(held.has(sessionId)),
  };
}
