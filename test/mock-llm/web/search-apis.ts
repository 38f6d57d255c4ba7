// Fake search APIs in the shapes of Tavily, Exa and SearXNG (see recorded/ for the shapes as
// documented). Results point at the fake pages of this server.

export interface FakeHit {
  title: string;
  path: string;
  excerpt: string;
}

export const FAKE_HITS: FakeHit[] = [
  {
    title: 'Llamas of the Andes',
    path: '/web/pages/llamas',
    excerpt: 'Llamas live 15 to 25 years, and some reach 30.',
  },
  {
    title: 'Alpaca care guide',
    path: '/web/pages/alpacas',
    excerpt: 'Alpacas live about 20 years and are smaller than llamas.',
  },
  {
    title: 'Field notes',
    path: '/web/pages/notes.txt',
    excerpt: 'The herd moved to the northern pasture.',
  },
];

/** A query containing this word finds nothing (to test the empty-result notice). */
export const EMPTY_QUERY_WORD = 'nothing';

export function findHits(query: string, maxResults: number): FakeHit[] {
  if (query.toLowerCase().includes(EMPTY_QUERY_WORD)) return [];
  return FAKE_HITS.slice(0, Math.max(0, maxResults));
}

export function encodeTavily(query: string, hits: FakeHit[], base: string): unknown {
  return {
    query,
    follow_up_questions: null,
    answer: null,
    images: [],
    results: hits.map((hit, i) => ({
      url: base + hit.path,
      title: hit.title,
      content: hit.excerpt,
      score: 0.9 - i / 10,
      raw_content: null,
    })),
    response_time: 0.12,
    request_id: 'mock-tavily',
  };
}

export function encodeExa(hits: FakeHit[], base: string): unknown {
  return {
    requestId: 'mock-exa',
    resolvedSearchType: 'neural',
    results: hits.map((hit) => ({
      id: base + hit.path,
      title: hit.title,
      url: base + hit.path,
      publishedDate: '2026-01-15T00:00:00.000Z',
      author: null,
      highlights: [hit.excerpt],
      highlightScores: [0.5],
    })),
    searchType: 'auto',
    costDollars: { total: 0.005 },
  };
}

export function encodeSearxng(query: string, hits: FakeHit[], base: string): unknown {
  return {
    query,
    number_of_results: 0,
    results: hits.map((hit, i) => ({
      url: base + hit.path,
      title: hit.title,
      content: hit.excerpt,
      engine: 'duckduckgo',
      engines: ['duckduckgo'],
      positions: [i + 1],
      publishedDate: null,
      score: 1 / (i + 1),
      category: 'general',
      template: 'default.html',
    })),
    answers: [],
    corrections: [],
    infoboxes: [],
    suggestions: [],
    unresponsive_engines: [],
  };
}
