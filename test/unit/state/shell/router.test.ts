import { afterEach, describe, expect, it, vi } from 'vitest';
import { asMessageId, asProjectId, asSessionId } from '../../../../src/core/model';
import { parseRoute, RouterState, routeHref, shouldFollowCreatedSession, type Route } from '../../../../src/state/shell/router.svelte';

describe('hash routes', () => {
  it('round-trips every route', () => {
    const routes: Route[] = [
      { name: 'chat', sessionId: null },
      { name: 'chat', sessionId: asSessionId('a b/c') },
      { name: 'chat', sessionId: null, isTemporary: true },
      { name: 'chat', sessionId: asSessionId('s1'), messageId: asMessageId('m/1') },
      { name: 'settings' },
      { name: 'settings', section: 'embeddings' },
      { name: 'agents' },
      { name: 'project', projectId: asProjectId('p1') },
    ];
    for (const route of routes) expect(parseRoute(routeHref(route))).toEqual(route);
  });
  it('opens Settings at a section named in the address', () => {
    expect(routeHref({ name: 'settings', section: 'embeddings' })).toBe('#/settings/embeddings');
    expect(parseRoute('#/settings/embeddings')).toEqual({ name: 'settings', section: 'embeddings' });
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
  it('never puts a temporary chat in the address: a reload must not find it again', () => {
    expect(shouldFollowCreatedSession({ name: 'chat', sessionId: null, isTemporary: true }, created)).toBe(false);
  });
});

describe('RouterState.followCreatedSession', () => {
  afterEach(() => vi.unstubAllGlobals());

  /** A window whose hashchange events are only dispatched when the test says so, as in a browser. */
  function stubWindow(hash: string) {
    const location = { hash };
    vi.stubGlobal('location', location);
    vi.stubGlobal('window', { addEventListener: () => undefined, removeEventListener: () => undefined });
    return location;
  }

  it('takes the new chat from the new-chat address', () => {
    const location = stubWindow('#/');
    new RouterState().followCreatedSession(asSessionId('s-new'));
    expect(location.hash).toBe('#/chat/s-new');
  });

  it('does not undo a navigation whose hashchange has not been dispatched yet', () => {
    const location = stubWindow('#/chat/s-new');
    const router = new RouterState();
    location.hash = '#/settings';
    router.followCreatedSession(asSessionId('s-new'));
    expect(location.hash).toBe('#/settings');
  });
});
