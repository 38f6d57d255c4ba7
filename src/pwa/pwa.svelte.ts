import type { InstallOutcome, InstallPrompt, InstallStatus } from './install-prompt';
import type { UpdatePrompt, UpdateStatus } from './update-prompt';

export interface PwaParts {
  update: UpdatePrompt;
  install: InstallPrompt;
  /** Starts watching online/offline; returns the unsubscribe. */
  watchConnectivity: (onChange: (isOnline: boolean) => void) => () => void;
}

/** Rune adapter over the framework-free PWA controllers, for src/app/components/pwa/. */
export class PwaState {
  updateStatus = $state<UpdateStatus>('idle');
  installStatus = $state<InstallStatus>('unavailable');
  isOnline = $state(true);
  /** The browser's answer to the persistent-storage request made on install; null until asked. */
  isStoragePersisted = $state<boolean | null>(null);

  private readonly unsubscribers: Array<() => void>;

  constructor(private readonly parts: PwaParts) {
    this.updateStatus = parts.update.status;
    this.installStatus = parts.install.status;
    this.unsubscribers = [
      parts.update.subscribe((status) => (this.updateStatus = status)),
      parts.install.subscribe((status) => (this.installStatus = status)),
      parts.watchConnectivity((isOnline) => (this.isOnline = isOnline)),
    ];
  }

  acceptUpdate(): void {
    this.parts.update.accept();
  }

  dismissUpdate(): void {
    this.parts.update.dismiss();
  }

  install(): Promise<InstallOutcome> {
    return this.parts.install.install();
  }

  dispose(): void {
    for (const unsubscribe of this.unsubscribers) unsubscribe();
    this.parts.update.dispose();
    this.parts.install.dispose();
  }
}
