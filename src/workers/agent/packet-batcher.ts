import type { Packet } from '../../core/agent/packets';

/** At most one postMessage per this interval, so a 1,000 tokens/s stream does not flood it. */
export const PACKET_BATCH_MS = 16;

/**
 * Collects packets and hands them over in batches. The end-of-turn packet flushes at once so
 * the UI never waits on a timer to learn that a run is over.
 */
export function createPacketBatcher(deliver: (packets: Packet[]) => void): {
  push(packet: Packet): void;
  flush(): void;
} {
  let pending: Packet[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;

  const flush = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    deliver(batch);
  };

  return {
    push(packet) {
      pending.push(packet);
      if (packet.obj.type === 'overall_stop') flush();
      else timer ??= setTimeout(flush, PACKET_BATCH_MS);
    },
    flush,
  };
}
