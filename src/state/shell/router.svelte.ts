import type { MessageId, ProjectId, SessionId } from '../../core/model';

export type Route =
  /**
   * `messageId`: a message to scroll to and highlight (a cited message of a past chat).
   * `isTemporary`: a temporary chat (never stored; its address holds no id, so a reload starts a new one).
   */
  | { name: 'chat'; sessionId: SessionId | null; messageId?: MessageId; isTemporary?: boolean }
  /** `section`: the settings section to scroll to (`#/settings/embeddings`). */
  | { name: 'settings'; section?: string }
  | { name: 'agents' }
  /** The prompt library. */
  | { name: 'prompts' }
  /** Tokens and spend per day, model, provider, chat and project. */
  | { name: 'usage' }
  /** A project's page; the projects panel fills it (the sidebar lists its chats meanwhile). */
  | { name: 'project'; projectId: ProjectId };

/**
 * Hash routes, so the static build works on any host and offline:
 * #/, #/chat/<id>, #/chat/<id>/<message id>, #/temporary, #/settings, #/settings/<section>, #/agents, #/prompts, #/usage, #/project/<id>.
 */
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '');
  if (path === '/settings') return { name: 'settings' };
  const settings = /^\/settings\/([a-z-]+)$/.exec(path);
  if (settings?.[1]) return { name: 'settings', section: settings[1] };
  if (path === '/agents') return { name: 'agents' };
  if (path === '/prompts') return { name: 'prompts' };
  if (path === '/usage') return { name: 'usage' };
  if (path === '/temporary') return { name: 'chat', sessionId: null, isTemporary: true };
  const chat = /^\/chat\/([^/]+)(?:\/([^/]+))?$/.exec(path);
  if (chat?.[1]) {
    const sessionId = decodeURIComponent(chat[1]) as SessionId;
    return chat[2] ? { name: 'chat', sessionId, messageId: decodeURIComponent(chat[2]) as MessageId } : { name: 'chat', sessionId };
  }
  const project = /^\/project\/([^/]+)$/.exec(path);
  if (project?.[1]) return { name: 'project', projectId: decodeURIComponent(project[1]) as ProjectId };
  return { name: 'chat', sessionId: null };
}

export function routeHref(route: Route): string {
  switch (route.name) {
    case 'settings':
      return route.section ? `#/settings/${route.section}` : '#/settings';
    case 'agents':
      return '#/agents';
    case 'prompts':
      return '#/prompts';
    case 'usage':
      return '#/usage';
    case 'project':
      return `#/project/${encodeURIComponent(route.projectId)}`;
    case 'chat':
      if (route.isTemporary === true) return '#/temporary';
      if (!route.sessionId) return '#/';
      return route.messageId
        ? `#/chat/${encodeURIComponent(route.sessionId)}/${encodeURIComponent(route.messageId)}`
        : `#/chat/${encodeURIComponent(route.sessionId)}`;
  }
}

/**
 * Whether a chat the app has just created should take over the address: only while the person
 * is still on the new chat that created it (or already on that chat). Someone who went to
 * Settings or another chat while the first answer ran stays where they went.
 */
export function shouldFollowCreatedSession(route: Route, sessionId: SessionId): boolean {
  return route.name === 'chat' && route.isTemporary !== true && (route.sessionId === null || route.sessionId === sessionId);
}

export class RouterState {
  route = $state<Route>(parseRoute(location.hash));
  private readonly onHashChange = (): void => {
    this.route = parseRoute(location.hash);
  };

  constructor() {
    window.addEventListener('hashchange', this.onHashChange);
  }

  go(route: Route): void {
    const href = routeHref(route);
    if (location.hash !== href) location.hash = href;
    this.route = route;
  }

  /**
   * A new chat got its id: its address replaces the new chat's, unless the person moved on.
   * Decided from the address itself: `route` follows it only once `hashchange` has been
   * dispatched, and a navigation still waiting for that event must not be undone.
   */
  followCreatedSession(sessionId: SessionId): void {
    if (shouldFollowCreatedSession(parseRoute(location.hash), sessionId)) this.go({ name: 'chat', sessionId });
  }

  dispose(): void {
    window.removeEventListener('hashchange', this.onHashChange);
  }
}
