import { describe, expect, it } from 'vitest';
import { asProjectId, asSessionId } from '../../../src/core/model';
import { parseRoute, routeHref, type Route } from '../../../src/state/router.svelte';

describe('hash routes', () => {
  it('round-trips every route', () => {
    const routes: Route[] = [
      { name: 'chat', sessionId: null },
      { name: 'chat', sessionId: asSessionId('a b/c') },
      { name: 'settings' },
      { name: 'agents' },
      { name: 'project', projectId: asProjectId('p1') },
    ];
    for (const route of routes) expect(parseRoute(routeHref(route))).toEqual(route);
  });
  it('falls back to a new chat for an unknown address', () => {
    expect(parseRoute('#/nowhere')).toEqual({ name: 'chat', sessionId: null });
  });
});
