import { describe, expect, it } from 'vitest';
import { asProjectId, asSessionId } from '../../../src/core/model';
import { parseRoute, routeHref, shouldFollowCreatedSession, type Route } from '../../../src/state/router.svelte';

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

describe('a chat created by the first message', () => {
  const created = asSessionId('s-new');
  it('takes over the address of the new chat it was sent from, and of itself', () => {
    expect(shouldFollowCreatedSession({ name: 'chat', sessionId: null }, created)).toBe(true);
    expect(shouldFollowCreatedSession({ name: 'chat', sessionId: created }, created)).toBe(true);
  });
  it('leaves the person where they went while the answer ran', () => {
    expect(shouldFollowCreatedSession({ name: 'settings' }, created)).toBe(false);
    expect(shouldFollowCreatedSession({ name: 'agents' }, created)).toBe(false);
    expect(shouldFollowCreatedSession({ name: 'project', projectId: asProjectId('p1') }, created)).toBe(false);
    expect(shouldFollowCreatedSession({ name: 'chat', sessionId: asSessionId('s-other') }, created)).toBe(false);
  });
});
