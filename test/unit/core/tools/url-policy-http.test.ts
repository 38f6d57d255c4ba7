import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkUrl } from '../../../../src/core/agent/tools/url-policy';
import { createHttpFetcher } from '../../../../src/workers/agent/http-fetcher';
import { startMockWeb, type StartedMockWeb } from '../../../mock-llm/web/web-server';

/** The URL policy applied hop by hop by the worker's fetcher, against the fake web. */
let web: StartedMockWeb;
beforeAll(async () => {
  web = await startMockWeb();
});
afterAll(() => web.close());

const signal = new AbortController().signal;
const lenient = (url: string): string | null => {
  const verdict = checkUrl(url, { shouldAllowPrivateNetwork: true });
  return verdict.isAllowed ? null : verdict.reason;
};
const strict = (url: string): string | null => {
  const verdict = checkUrl(url, { shouldAllowPrivateNetwork: false });
  return verdict.isAllowed ? null : verdict.reason;
};

describe('the HTTP fetcher with the URL policy', () => {
  it('refuses a loopback page before any request is sent', async () => {
    const fetched = await createHttpFetcher().fetch(`${web.url}/web/pages/llamas`, {
      signal,
      maxBytes: 10_000,
      checkUrl: strict,
    });
    expect(fetched).toEqual({
      ok: false,
      error: { code: 'blocked', message: expect.stringMatching(/loopback/) as string },
    });
    expect(web.requests()).toHaveLength(0);
  });

  it('follows a redirect to an allowed page and reports the final URL', async () => {
    const target = `${web.url}/web/pages/notes.txt`;
    const fetched = await createHttpFetcher().fetch(
      `${web.url}/web/redirect?to=${encodeURIComponent(target)}`,
      {
        signal,
        maxBytes: 10_000,
        checkUrl: lenient,
      },
    );
    expect(fetched.ok && fetched.value).toMatchObject({
      status: 200,
      url: target,
      bodyText: expect.stringContaining('Field notes') as string,
    });
  });

  it.each([
    ['a metadata endpoint', 'http://169.254.169.254/latest/meta-data/', /metadata/],
    ['a file URL', 'file:///etc/passwd', /Only http and https/],
    ['a private address', 'http://10.0.0.7/admin', /private network/],
  ])('refuses a redirect to %s without requesting it', async (_label, to, reason) => {
    const check = (url: string): string | null => (url.startsWith(web.url) ? null : strict(url));
    const fetched = await createHttpFetcher().fetch(
      `${web.url}/web/redirect?to=${encodeURIComponent(to)}`,
      {
        signal,
        maxBytes: 10_000,
        checkUrl: check,
      },
    );
    expect(fetched.ok).toBe(false);
    if (!fetched.ok) {
      expect(fetched.error.code).toBe('blocked');
      expect(fetched.error.message).toMatch(/redirected to/);
      expect(fetched.error.message).toMatch(reason);
    }
  });

  it('gives up after too many redirects', async () => {
    let url = `${web.url}/web/pages/llamas`;
    for (let i = 0; i < 7; i++) url = `${web.url}/web/redirect?to=${encodeURIComponent(url)}`;
    const fetched = await createHttpFetcher().fetch(url, {
      signal,
      maxBytes: 10_000,
      checkUrl: lenient,
    });
    expect(!fetched.ok && fetched.error.code).toBe('too_many_redirects');
  });

  it('stops reading an oversize body at the cap and says it was cut', async () => {
    const fetched = await createHttpFetcher().fetch(`${web.url}/web/pages/big`, {
      signal,
      maxBytes: 4096,
      checkUrl: lenient,
    });
    expect(fetched.ok && fetched.value.isTruncated).toBe(true);
    expect(
      fetched.ok && new TextEncoder().encode(fetched.value.bodyText).byteLength,
    ).toBeLessThanOrEqual(4096);
  });

  it('does not mark a body that fits exactly as cut', async () => {
    const full = await createHttpFetcher().fetch(`${web.url}/web/pages/notes.txt`, {
      signal,
      maxBytes: 10_000,
    });
    const size = full.ok ? new TextEncoder().encode(full.value.bodyText).byteLength : 0;
    const exact = await createHttpFetcher().fetch(`${web.url}/web/pages/notes.txt`, {
      signal,
      maxBytes: size,
    });
    expect(exact.ok && exact.value.isTruncated).toBe(false);
  });

  it('checks the final URL when the browser hides the redirect target', async () => {
    // What a browser does with redirect: 'manual': an opaque redirect, then the followed fetch.
    const fakeFetch = (_url: string, init: RequestInit): Promise<Response> => {
      if (init.redirect === 'manual') {
        const opaque = new Response(null, { status: 200 });
        Object.defineProperty(opaque, 'type', { value: 'opaqueredirect' });
        return Promise.resolve(opaque);
      }
      const followed = new Response('secret', { status: 200 });
      Object.defineProperty(followed, 'url', { value: 'http://192.168.1.1/router' });
      return Promise.resolve(followed);
    };
    const fetched = await createHttpFetcher({ fetch: fakeFetch }).fetch('https://short.example/x', {
      signal,
      maxBytes: 1000,
      checkUrl: strict,
    });
    expect(fetched).toEqual({
      ok: false,
      error: {
        code: 'blocked',
        message: expect.stringMatching(
          /redirected to http:\/\/192\.168\.1\.1\/router.*private network/,
        ) as string,
      },
    });
  });

  it('sends no cookies or referrer, and reports a network failure as such', async () => {
    const seen: RequestInit[] = [];
    const failing = (_url: string, init: RequestInit): Promise<Response> => {
      seen.push(init);
      return Promise.reject(new TypeError('Failed to fetch'));
    };
    const fetched = await createHttpFetcher({ fetch: failing }).fetch('https://example.com/', {
      signal,
      maxBytes: 10,
    });
    expect(seen[0]).toMatchObject({
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
      redirect: 'manual',
    });
    expect(!fetched.ok && fetched.error).toEqual({
      code: 'network',
      message: expect.stringMatching(/example\.com.*CORS/) as string,
    });
  });
});
