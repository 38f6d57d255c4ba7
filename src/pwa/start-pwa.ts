import { registerSW } from 'virtual:pwa-register';
import type { Scheduler } from '../core/ports';
import { watchConnectivity } from './connectivity';
import { createInstallPrompt } from './install-prompt';
import { PwaState } from './pwa.svelte';
import { createUpdatePrompt } from './update-prompt';

/** How often an open tab asks the server whether a new version was deployed. */
export const UPDATE_CHECK_MS = 60 * 60 * 1000;

export interface StartPwaOptions {
  /** True while an answer is being generated; updates never reload the page during one. */
  isGenerationRunning: () => boolean;
}

const windowScheduler: Scheduler = {
  schedule(callback, ms) {
    const id = window.setTimeout(callback, ms);
    return () => window.clearTimeout(id);
  },
};

function reportError(error: unknown): void {
  console.error('Carrel PWA:', error);
}

/**
 * Registers the service worker and wires the update prompt, install prompt and online/offline
 * state. Called once by the composition root; the returned state drives components/pwa/.
 */
export function startPwa(options: StartPwaOptions): PwaState {
  let activateWaitingWorker: (() => Promise<void>) | null = null;
  const update = createUpdatePrompt({
    isGenerationRunning: options.isGenerationRunning,
    activateUpdate: () =>
      activateWaitingWorker
        ? activateWaitingWorker()
        : Promise.reject(new Error('No service worker is registered.')),
    reload: () => window.location.reload(),
    scheduler: windowScheduler,
    onError: reportError,
  });
  // Assigned below; the install prompt reports persistence asynchronously, after that.
  let state: PwaState | null = null;
  const install = createInstallPrompt({
    target: window,
    storage: 'storage' in navigator ? navigator.storage : undefined,
    isInstalled: window.matchMedia('(display-mode: standalone)').matches,
    onPersistence: (isPersisted) => {
      if (state) state.isStoragePersisted = isPersisted;
    },
    onError: reportError,
  });
  state = new PwaState({
    update,
    install,
    watchConnectivity: (onChange) => watchConnectivity(window, onChange),
  });

  const updateServiceWorker = registerSW({
    immediate: true,
    onNeedRefresh: () => update.notifyUpdateReady(),
    // The new worker controls the page (accepted here or in another tab); old chunks may be gone.
    onNeedReload: () => update.notifyControllerChanged(),
    onRegisteredSW: (_url, registration) => {
      if (!registration) return;
      window.setInterval(() => {
        if (navigator.onLine) registration.update().catch(reportError);
      }, UPDATE_CHECK_MS);
    },
    onRegisterError: reportError,
  });
  activateWaitingWorker = () => updateServiceWorker();
  return state;
}
