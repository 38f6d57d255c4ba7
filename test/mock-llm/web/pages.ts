// Fake web pages for open_url: real HTML with navigation, scripts and an article, so the
// readable-text extraction has something to strip.

export interface FakePage {
  contentType: string;
  body: string;
  /** false: no Access-Control-Allow-Origin, so a browser cannot read it directly. */
  hasCors: boolean;
}

const FILLER =
  'Herds graze on the high plateaus of the Andes, where the air is thin and the nights are cold. ' +
  'Breeders have kept these animals for thousands of years, for their fibre, for carrying loads and for company. ';

function article(title: string, heading: string, facts: string[]): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${title}</title>
<script>window.tracker = { id: 'UA-000' };</script>
<style>body { font-family: serif; }</style></head>
<body>
<nav><a href="/">Home</a> | <a href="/animals">Animals</a> | <a href="/shop">Shop</a></nav>
<header><div class="logo">Camelid Weekly</div></header>
<main><article>
<h1>${heading}</h1>
${facts.map((fact) => `<p>${fact} ${FILLER}</p>`).join('\n')}
<ul><li>Native to South America</li><li>Social herd animals</li></ul>
</article></main>
<footer>© 2026 Camelid Weekly · <a href="/privacy">Privacy</a></footer>
</body></html>`;
}

export const FAKE_PAGES: Record<string, FakePage> = {
  llamas: {
    contentType: 'text/html; charset=utf-8',
    hasCors: true,
    body: article('Llamas of the Andes', 'Llamas of the Andes', [
      'Llamas live 15 to 25 years, and some reach 30.',
      'An adult llama can carry a quarter of its body weight for several days.',
    ]),
  },
  alpacas: {
    contentType: 'text/html; charset=utf-8',
    hasCors: true,
    body: article('Alpaca care guide', 'Caring for alpacas', [
      'Alpacas live about 20 years and are smaller than llamas.',
      'Their fleece is shorn once a year, in spring.',
    ]),
  },
  'notes.txt': {
    contentType: 'text/plain; charset=utf-8',
    hasCors: true,
    body: 'Field notes: the herd moved to the northern pasture on Tuesday.',
  },
  'no-cors': {
    contentType: 'text/html; charset=utf-8',
    hasCors: false,
    body: article('Guanacos', 'Wild guanacos', ['Guanacos are the wild ancestors of llamas.']),
  },
  big: {
    contentType: 'text/html; charset=utf-8',
    hasCors: true,
    body: article(
      'A very long page',
      'Everything about vicuñas',
      Array.from({ length: 800 }, (_, i) => `Vicuña fact number ${i + 1}.`),
    ),
  },
  'report.pdf': { contentType: 'application/pdf', hasCors: true, body: '%PDF-1.7\n%fake\n' },
};

/** The readable text a reader service (e.g. r.jina.ai) would return for a page: plain text. */
export function renderReaderText(page: FakePage, url: string): string {
  const title = /<title>([^<]*)<\/title>/.exec(page.body)?.[1] ?? url;
  const text = page.body
    .replace(/<(script|style|nav|header|footer)[\s\S]*?<\/\1>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return `Title: ${title}\n\nURL Source: ${url}\n\nMarkdown Content:\n${text}`;
}
