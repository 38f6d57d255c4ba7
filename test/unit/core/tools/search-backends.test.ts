import { describe, expect, it } from 'vitest';
import {
  createSearchBackend,
  searchBackendConfigSchema,
} from '../../../../src/core/agent/tools/search-backends';
import { createRecordedHttp } from './recorded-http';

const signal = new AbortController().signal;

describe('Tavily backend', () => {
  it('posts the query with the bearer key and reads the recorded results', async () => {
    const http = createRecordedHttp(200, 'tavily-search.json');
    const backend = createSearchBackend({ kind: 'tavily', apiKey: 'tvly-abc' }, http);
    const found = await backend.search('how long do llamas live', { maxResults: 3, signal });

    expect(http.calls[0]?.url).toBe('https://api.tavily.com/search');
    expect(http.calls[0]?.request).toMatchObject({
      method: 'POST',
      headers: { authorization: 'Bearer tvly-abc' },
    });
    expect(JSON.parse(http.calls[0]?.request.body ?? '')).toMatchObject({
      query: 'how long do llamas live',
      max_results: 3,
    });
    expect(found).toEqual({
      ok: true,
      value: [
        expect.objectContaining({
          title: 'Llama - Wikipedia',
          url: 'https://en.wikipedia.org/wiki/Llama',
          snippet: expect.stringContaining('15 to 25 years') as string,
        }) as unknown,
        expect.objectContaining({
          url: 'https://www.nationalgeographic.com/animals/mammals/facts/llama',
        }) as unknown,
      ],
    });
  });

  it('returns an empty list for a recorded empty answer', async () => {
    const backend = createSearchBackend(
      { kind: 'tavily', apiKey: 'tvly-abc' },
      createRecordedHttp(200, 'tavily-empty.json'),
    );
    expect(await backend.search('zzqx', { maxResults: 5, signal })).toEqual({
      ok: true,
      value: [],
    });
  });

  it('turns a 401 into an auth failure that mentions the key', async () => {
    const backend = createSearchBackend(
      { kind: 'tavily', apiKey: 'wrong' },
      createRecordedHttp(401, 'tavily-401.json'),
    );
    const found = await backend.search('llamas', { maxResults: 5, signal });
    expect(found.ok).toBe(false);
    if (!found.ok) {
      expect(found.error.code).toBe('auth');
      expect(found.error.message).toMatch(/Tavily.*API key/);
    }
  });
});

describe('Exa backend', () => {
  it('sends x-api-key with content options under "contents" and prefers highlights as the snippet', async () => {
    const http = createRecordedHttp(200, 'exa-search.json');
    const backend = createSearchBackend(
      { kind: 'exa', apiKey: 'exa-key', baseUrl: 'https://proxy.example/exa/' },
      http,
    );
    const found = await backend.search('llama lifespan', { maxResults: 2, signal });

    expect(http.calls[0]?.url).toBe('https://proxy.example/exa/search');
    expect(http.calls[0]?.request.headers).toMatchObject({ 'x-api-key': 'exa-key' });
    const body = JSON.parse(http.calls[0]?.request.body ?? '') as Record<string, unknown>;
    expect(body).toMatchObject({
      query: 'llama lifespan',
      numResults: 2,
      contents: { highlights: true },
    });
    expect(body).not.toHaveProperty('text');
    expect(found.ok && found.value).toEqual([
      {
        title: 'Llama - Wikipedia',
        url: 'https://en.wikipedia.org/wiki/Llama',
        snippet: 'Llamas live 15 to 25 years.',
        publishedDate: '2024-03-02T00:00:00.000Z',
      },
      {
        title: 'Llama | Description, Habitat, & Facts | Britannica',
        url: 'https://www.britannica.com/animal/llama',
        snippet: 'The llama lives about 20 years in captivity.',
      },
    ]);
  });

  it('reports an unexpected answer shape instead of crashing', async () => {
    const backend = createSearchBackend(
      { kind: 'exa', apiKey: 'k' },
      createRecordedHttp(200, 'exa-401.json'),
    );
    const found = await backend.search('x', { maxResults: 2, signal });
    expect(found.ok).toBe(false);
    if (!found.ok) expect(found.error.code).toBe('bad_response');
  });
});

describe('SearXNG backend', () => {
  it('asks for JSON with a GET, cuts to the requested count and keeps empty excerpts empty', async () => {
    const http = createRecordedHttp(200, 'searxng-search.json');
    const backend = createSearchBackend(
      searchBackendConfigSchema.parse({
        kind: 'searxng',
        baseUrl: 'http://search.home.arpa:8080/',
      }),
      http,
    );
    const found = await backend.search('how long do llamas live', { maxResults: 1, signal });
    const sent = new URL(http.calls[0]?.url ?? '');
    expect(sent.pathname).toBe('/search');
    expect(Object.fromEntries(sent.searchParams)).toEqual({
      q: 'how long do llamas live',
      format: 'json',
    });
    expect(http.calls[0]?.request.method).toBe('GET');
    expect(found.ok && found.value.map((r) => r.url)).toEqual([
      'https://en.wikipedia.org/wiki/Llama',
    ]);

    const both = await backend.search('llamas', { maxResults: 5, signal });
    expect(both.ok && both.value[1]).toEqual({
      title: 'Llama FAQ',
      url: 'https://www.llama.org/faq',
      snippet: '',
      publishedDate: '2023-11-05T00:00:00',
    });
  });

  it('explains that a 403 may mean the JSON format is not enabled', async () => {
    const http = createRecordedHttp(403, 'tavily-401.json');
    const backend = createSearchBackend(
      { kind: 'searxng', baseUrl: 'https://s.example', headers: {} },
      http,
    );
    const found = await backend.search('x', { maxResults: 5, signal });
    expect(!found.ok && found.error.message).toMatch(/search\.formats/);
  });
});
