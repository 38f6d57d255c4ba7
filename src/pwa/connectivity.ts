/**
 * Online/offline as the browser reports it. `navigator.onLine === true` only means "some network
 * exists", so the UI says "Offline" when it is false and otherwise stays quiet; a provider that
 * cannot be reached is reported by the send itself.
 */

export interface ConnectivityTarget {
  readonly navigator: { readonly onLine: boolean };
  addEventListener(type: 'online' | 'offline', listener: () => void): void;
  removeEventListener(type: 'online' | 'offline', listener: () => void): void;
}

/** Calls `onChange` with the current state now and on every change; returns the unsubscribe. */
export function watchConnectivity(
  target: ConnectivityTarget,
  onChange: (isOnline: boolean) => void,
): () => void {
  const report = (): void => onChange(target.navigator.onLine);
  target.addEventListener('online', report);
  target.addEventListener('offline', report);
  report();
  return () => {
    target.removeEventListener('online', report);
    target.removeEventListener('offline', report);
  };
}
