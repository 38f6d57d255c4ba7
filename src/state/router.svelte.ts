import type { SessionId } from '../core/model';

export type Route = { name: 'chat'; sessionId: SessionId | null } | { name: 'settings' };

/** Hash routes, so the static build works on any host and offline: #/, #/chat/<id>, #/settings. */
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '');
  if (path === '/settings') return { name: 'settings' };
  const chat = /^\/chat\/([^/]+)$/.exec(path);
  if (chat?.[1]) return { name: 'chat', sessionId: decodeURIComponent(chat[1]) as SessionId };
  return { name: 'chat', sessionId: null };
}

export function routeHref(route: Route): string {
  if (route.name === 'settings') return '#/settings';
  return route.sessionId ? `#/chat/${encodeURIComponent(route.sessionId)}` : '#/';
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

  dispose(): void {
    window.removeEventListener('hashchange', this.onHashChange);
  }
}
