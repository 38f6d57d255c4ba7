import type { ChatSessionState } from './chat-session.svelte';
import type { ProvidersState } from './providers.svelte';
import type { RouterState } from './router.svelte';
import type { SessionsState } from './sessions.svelte';

/** Everything the component tree needs, built once by the composition root (main.ts). */
export interface AppContext {
  router: RouterState;
  chat: ChatSessionState;
  providers: ProvidersState;
  sessions: SessionsState;
}
