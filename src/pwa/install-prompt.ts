import { requestPersistence, type PersistableStorage } from '../storage';

/**
 * The Install button. Chromium fires `beforeinstallprompt` when Carrel is installable; we keep
 * the event (suppressing the browser's own mini-infobar) and replay it when the person clicks
 * Install. Once installed, Carrel asks for persistent storage: an installed app is where people
 * keep their projects, and it is also when browsers are most willing to grant it.
 */

export type InstallStatus = 'unavailable' | 'available' | 'prompting' | 'installed';
export type InstallOutcome = 'accepted' | 'dismissed' | 'unavailable';

/** Chromium's BeforeInstallPromptEvent, not in lib.dom. */
export interface BeforeInstallPromptEvent extends Event {
  prompt(): Promise<unknown>;
  readonly userChoice: Promise<{ outcome: 'accepted' | 'dismissed' }>;
}

export interface InstallTarget {
  addEventListener(
    type: 'beforeinstallprompt' | 'appinstalled',
    listener: (event: Event) => void,
  ): void;
  removeEventListener(
    type: 'beforeinstallprompt' | 'appinstalled',
    listener: (event: Event) => void,
  ): void;
}

export interface InstallPromptDeps {
  target: InstallTarget;
  /** `navigator.storage`; absent in browsers without the Storage API. */
  storage: PersistableStorage | undefined;
  /** True when already running as an installed app (display-mode: standalone). */
  isInstalled: boolean;
  /** Called with the browser's answer to the persistence request. */
  onPersistence?: (isPersisted: boolean) => void;
  onError?: (error: unknown) => void;
}

export interface InstallPrompt {
  readonly status: InstallStatus;
  subscribe(listener: (status: InstallStatus) => void): () => void;
  install(): Promise<InstallOutcome>;
  dispose(): void;
}

function isBeforeInstallPromptEvent(event: Event): event is BeforeInstallPromptEvent {
  return 'prompt' in event && typeof event.prompt === 'function' && 'userChoice' in event;
}

export function createInstallPrompt(deps: InstallPromptDeps): InstallPrompt {
  let status: InstallStatus = deps.isInstalled ? 'installed' : 'unavailable';
  let deferred: BeforeInstallPromptEvent | null = null;
  let hasRequestedPersistence = false;
  const listeners = new Set<(status: InstallStatus) => void>();

  function setStatus(next: InstallStatus): void {
    if (next === status) return;
    status = next;
    for (const listener of listeners) listener(status);
  }

  function persistOnce(): void {
    if (hasRequestedPersistence || !deps.storage) return;
    hasRequestedPersistence = true;
    requestPersistence(deps.storage).then(
      (isPersisted) => deps.onPersistence?.(isPersisted),
      (error: unknown) => deps.onError?.(error),
    );
  }

  function markInstalled(): void {
    deferred = null;
    setStatus('installed');
    persistOnce();
  }

  const onBeforeInstallPrompt = (event: Event): void => {
    if (!isBeforeInstallPromptEvent(event)) return;
    event.preventDefault();
    deferred = event;
    if (status !== 'prompting') setStatus('available');
  };
  // Fired however the app was installed: our button, the address bar icon or the browser menu.
  const onAppInstalled = (): void => markInstalled();

  deps.target.addEventListener('beforeinstallprompt', onBeforeInstallPrompt);
  deps.target.addEventListener('appinstalled', onAppInstalled);

  return {
    get status() {
      return status;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async install() {
      const event = deferred;
      if (!event || status !== 'available') return 'unavailable';
      // A prompt event can be shown only once.
      deferred = null;
      setStatus('prompting');
      try {
        await event.prompt();
        const { outcome } = await event.userChoice;
        if (outcome === 'accepted') markInstalled();
        else setStatus(deferred ? 'available' : 'unavailable');
        return outcome;
      } catch (error) {
        setStatus('unavailable');
        deps.onError?.(error);
        return 'unavailable';
      }
    },
    dispose() {
      deps.target.removeEventListener('beforeinstallprompt', onBeforeInstallPrompt);
      deps.target.removeEventListener('appinstalled', onAppInstalled);
      listeners.clear();
    },
  };
}
