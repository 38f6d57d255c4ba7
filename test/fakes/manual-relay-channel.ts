import type { RelayChannel, RelayMessage } from '../../src/workers/agent/answer-relay';

/**
 * A relay channel in one realm: what the host posts is kept in order (as structured clones,
 * like a BroadcastChannel), and the test decides when another tab's message reaches the host.
 */
export function createManualRelayChannel(): {
  channel: RelayChannel;
  posted: RelayMessage[];
  deliverToHost: (message: RelayMessage) => void;
} {
  const posted: RelayMessage[] = [];
  const listeners: Array<(message: unknown) => void> = [];
  return {
    posted,
    channel: {
      post: (message) => posted.push(structuredClone(message)),
      listen(onMessage) {
        listeners.push(onMessage);
        return () => listeners.splice(listeners.indexOf(onMessage), 1);
      },
    },
    deliverToHost(message) {
      for (const listener of [...listeners]) listener(message);
    },
  };
}
