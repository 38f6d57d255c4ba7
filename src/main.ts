// First: configures libraries before any of them can probe eval() under the CSP.
import './pwa/strict-csp';
import { mount } from 'svelte';
import App from './app/App.svelte';
import PwaControls from './app/components/pwa/PwaControls.svelte';
import './app/app.css';
import { ChatSessionState } from './state/chat-session.svelte';
import { ProvidersState } from './state/providers.svelte';
import { RouterState } from './state/router.svelte';
import { SessionsState } from './state/sessions.svelte';
import { openCarrelDb } from './storage/db';
import DatabaseBanner from './app/components/storage/DatabaseBanner.svelte';
import { DatabaseStatus } from './state/database-status.svelte';
import { observe } from './storage/observe';
import { createMessageStore } from './storage/message.store';
import { createProviderStore } from './storage/provider.store';
import { createSessionStore } from './storage/session.store';
import { createAgentClient } from './workers/agent/agent.client';
import { startPwa } from './pwa/start-pwa';

/** Composition root: builds stores and worker clients, then mounts the app. */
async function start(): Promise<void> {
  const target = document.getElementById('app');
  if (!target) throw new Error('The page has no #app element.');
  const clock = { now: () => Date.now(), timeZone: () => Intl.DateTimeFormat().resolvedOptions().timeZone };
  const newId = (): string => crypto.randomUUID();

  const databaseStatus = new DatabaseStatus();
  const db = await openCarrelDb('carrel', {
    // A newer Carrel opened in another tab: this connection is closed; ask for a reload.
    onVersionChange: () => databaseStatus.markOutdated(),
    onBlocked: () => databaseStatus.markBlocked(),
  });
  mount(DatabaseBanner, { target: document.body, props: { status: databaseStatus } });
  const sessionStore = createSessionStore(db, clock);
  const messageStore = createMessageStore(db, clock);
  const agent = createAgentClient();
  const router = new RouterState();
  const providers = new ProvidersState(createProviderStore(db), newId);
  const sessions = new SessionsState((onValue, onError) => observe(() => sessionStore.list(), onValue, onError));
  const chat = new ChatSessionState({
    agent,
    sessions: sessionStore,
    messages: messageStore,
    newRunId: newId,
    onSessionCreated: (sessionId) => router.go({ name: 'chat', sessionId }),
  });
  await providers.load();
  // Answers left streaming by a tab that closed mid-stream are shown as interrupted, with retry.
  void agent
    .recoverInterrupted()
    .then((recovered) => (recovered > 0 ? chat.reload() : undefined))
    .catch((error: unknown) => console.error('Could not check for interrupted answers:', error));
  mount(App, { target, props: { context: { router, chat, providers, sessions } } });
  // Service worker, update prompt, install button and offline indicator (src/pwa, issue 10).
  const pwa = startPwa({ isGenerationRunning: () => chat.isRunning });
  mount(PwaControls, { target: document.body, props: { pwa } });
}

start().catch((error: unknown) => {
  console.error(error);
  const target = document.getElementById('app');
  if (target) {
    target.textContent = `Carrel could not start: ${error instanceof Error ? error.message : String(error)}`;
  }
});
