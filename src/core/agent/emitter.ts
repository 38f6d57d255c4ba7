import type { Packet, PacketObj, Placement } from './packets';

/**
 * The emitter only takes packets: lower levels push, the top level drains. It holds
 * no logic; nothing may read it to decide anything.
 */
export interface Emitter {
  emit(obj: PacketObj, placement?: Partial<Omit<Placement, 'modelIndex'>>): void;
}

export type PacketSink = (packet: Packet) => void;

/** An emitter tagged with its model index; every packet goes to the shared sink in order. */
export function createEmitter(modelIndex: number, sink: PacketSink): Emitter {
  return {
    emit(obj, placement) {
      sink({
        placement: { turnIndex: placement?.turnIndex ?? 0, tabIndex: placement?.tabIndex ?? 0, modelIndex },
        obj,
      });
    },
  };
}
