import { describe, expect, it } from 'vitest';
import { createInstallPrompt, type InstallTarget } from '../../../src/pwa/install-prompt';
import type { PersistableStorage } from '../../../src/storage/persistence';

class FakeInstallPromptEvent extends Event {
  isPrompted = false;
  readonly userChoice: Promise<{ outcome: 'accepted' | 'dismissed' }>;

  constructor(outcome: 'accepted' | 'dismissed') {
    super('beforeinstallprompt', { cancelable: true });
    this.userChoice = Promise.resolve({ outcome });
  }

  prompt(): Promise<void> {
    this.isPrompted = true;
    return Promise.resolve();
  }
}

function createStorage(isPersisted = false) {
  const storage = {
    persistCalls: 0,
    persisted: () => Promise.resolve(isPersisted),
    persist: () => {
      storage.persistCalls += 1;
      return Promise.resolve(true);
    },
  } satisfies PersistableStorage & { persistCalls: number };
  return storage;
}

function setUp(options: { isInstalled?: boolean; isPersisted?: boolean } = {}) {
  const target: InstallTarget & EventTarget = new EventTarget();
  const storage = createStorage(options.isPersisted);
  const persistence: boolean[] = [];
  const prompt = createInstallPrompt({
    target,
    storage,
    isInstalled: options.isInstalled ?? false,
    onPersistence: (isPersisted) => persistence.push(isPersisted),
  });
  return { target, storage, persistence, prompt };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('install prompt', () => {
  it('has no Install button until the browser offers installation', async () => {
    const { prompt } = setUp();
    expect(prompt.status).toBe('unavailable');
    expect(await prompt.install()).toBe('unavailable');
  });

  it('keeps the browser offer instead of letting the browser show its own banner', () => {
    const { target, prompt } = setUp();
    const event = new FakeInstallPromptEvent('accepted');
    target.dispatchEvent(event);
    expect(event.defaultPrevented).toBe(true);
    expect(prompt.status).toBe('available');
  });

  it('asks for persistent storage once the person accepts the install', async () => {
    const { target, storage, persistence, prompt } = setUp();
    const event = new FakeInstallPromptEvent('accepted');
    target.dispatchEvent(event);
    expect(await prompt.install()).toBe('accepted');
    await settle();
    expect(event.isPrompted).toBe(true);
    expect(prompt.status).toBe('installed');
    expect(storage.persistCalls).toBe(1);
    expect(persistence).toEqual([true]);
    // The browser also fires appinstalled; persistence is not asked twice.
    target.dispatchEvent(new Event('appinstalled'));
    await settle();
    expect(storage.persistCalls).toBe(1);
  });

  it('hides the button again when the person dismisses the browser dialog, and asks nothing', async () => {
    const { target, storage, prompt } = setUp();
    target.dispatchEvent(new FakeInstallPromptEvent('dismissed'));
    expect(await prompt.install()).toBe('dismissed');
    await settle();
    expect(prompt.status).toBe('unavailable');
    expect(storage.persistCalls).toBe(0);
  });

  it('requests persistence when installed from the browser menu instead of the button', async () => {
    const { target, storage, prompt } = setUp();
    target.dispatchEvent(new Event('appinstalled'));
    await settle();
    expect(prompt.status).toBe('installed');
    expect(storage.persistCalls).toBe(1);
  });

  it('does not ask again when storage is already persistent', async () => {
    const { target, storage, persistence } = setUp({ isPersisted: true });
    target.dispatchEvent(new Event('appinstalled'));
    await settle();
    expect(storage.persistCalls).toBe(0);
    expect(persistence).toEqual([true]);
  });

  it('starts as installed when running as the installed app', () => {
    const { prompt } = setUp({ isInstalled: true });
    expect(prompt.status).toBe('installed');
  });

  it('stops listening after dispose', () => {
    const { target, prompt } = setUp();
    prompt.dispose();
    target.dispatchEvent(new FakeInstallPromptEvent('accepted'));
    expect(prompt.status).toBe('unavailable');
  });
});
