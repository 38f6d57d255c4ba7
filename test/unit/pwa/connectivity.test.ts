import { describe, expect, it } from 'vitest';
import { watchConnectivity, type ConnectivityTarget } from '../../../src/pwa/connectivity';

function createTarget() {
  const events = new EventTarget();
  const navigator = { onLine: true };
  const target: ConnectivityTarget = {
    navigator,
    addEventListener: (type, listener) => events.addEventListener(type, listener),
    removeEventListener: (type, listener) => events.removeEventListener(type, listener),
  };
  const go = (isOnline: boolean) => {
    navigator.onLine = isOnline;
    events.dispatchEvent(new Event(isOnline ? 'online' : 'offline'));
  };
  return { target, go };
}

describe('connectivity', () => {
  it('reports the current state at once and every change after', () => {
    const { target, go } = createTarget();
    const seen: boolean[] = [];
    watchConnectivity(target, (isOnline) => seen.push(isOnline));
    go(false);
    go(true);
    expect(seen).toEqual([true, false, true]);
  });

  it('stops reporting after unsubscribe', () => {
    const { target, go } = createTarget();
    const seen: boolean[] = [];
    const stop = watchConnectivity(target, (isOnline) => seen.push(isOnline));
    stop();
    go(false);
    expect(seen).toEqual([true]);
  });
});
