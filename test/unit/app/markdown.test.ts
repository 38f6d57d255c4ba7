import { beforeAll, describe, expect, it, vi } from 'vitest';
import { asFileId, type Citation } from '../../../src/core/model';
import { loadMath, renderMarkdownHtml } from '../../../src/app/lib/markdown';

const WEB_SOURCE: Citation = { number: 1, title: 'Example page', url: 'https://example.com/page' };
const FILE_SOURCE: Citation = { number: 2, title: 'report.pdf', fileId: asFileId('file-1') };

describe('renderMarkdownHtml', () => {
  beforeAll(() => loadMath());

  it('renders raw HTML from the model as text, never as tags', () => {
    const html = renderMarkdownHtml('<img src=x onerror=alert(1)> and <script>alert(1)</script>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('refuses javascript: and data: links', () => {
    const html = renderMarkdownHtml('[x](javascript:alert(1)) [y](data:text/html;base64,PHNjcmlwdD4=)');
    expect(html).not.toMatch(/href="(javascript|data):/i);
    expect(html).not.toContain('<a');
  });

  it('opens external links in a new tab without opener or referrer', () => {
    const html = renderMarkdownHtml('[docs](https://example.com/docs)');
    expect(html).toContain('href="https://example.com/docs"');
    expect(html).toContain('target="_blank"');
    expect(html).toContain('rel="noopener noreferrer"');
  });

  it('turns images into links so no remote image ever loads', () => {
    const html = renderMarkdownHtml('![a cat](https://example.com/cat.png)');
    expect(html).not.toContain('<img');
    expect(html).toContain('<a class="image-link" href="https://example.com/cat.png"');
    expect(html).toContain('a cat');
  });

  it('renders fenced code escaped, labelled with its language', () => {
    const html = renderMarkdownHtml('```ts\nconst a = "<b>";\n```');
    expect(html).toContain('<pre class="code-block" data-language="ts"><code class="language-ts">');
    expect(html).toContain('const a = &quot;&lt;b&gt;&quot;;');
  });

  it('renders tables', () => {
    const html = renderMarkdownHtml('| a | b |\n|---|---|\n| 1 | 2 |');
    expect(html).toContain('<table>');
    expect(html).toContain('<td>2</td>');
  });

  it('renders inline and display math with KaTeX', () => {
    const html = renderMarkdownHtml('Euler: $e^{i\\pi}+1=0$\n\n$$\n\\int_0^1 x\\,dx\n$$');
    expect(html).toContain('class="katex"');
    expect(html).toContain('class="math-block"');
    expect(html).toContain('katex-display');
  });

  it('renders math written as \\( \\) inline and \\[ \\] for display, as models often write it', () => {
    const html = renderMarkdownHtml(
      'The root is \\(x = \\frac{-b}{2a}\\) here, inline display \\[a^2+b^2=c^2\\] too.\n\n\\[\n\\int_0^1 x\\,dx\n\n= \\tfrac12\n\\]',
    );
    expect(html).toContain('<annotation encoding="application/x-tex">x = \\frac{-b}{2a}</annotation>');
    expect(html).toContain('<span class="math-display"><span class="katex-display">');
    expect(html).toContain('<annotation encoding="application/x-tex">a^2+b^2=c^2</annotation>');
    // A display block keeps its blank line: it is one formula, not two paragraphs.
    expect(html).toContain('<div class="math-block"><span class="katex-display">');
    expect(html).toMatch(/<annotation encoding="application\/x-tex">\\int_0\^1 x\\,dx\n+= \\tfrac12\n*<\/annotation>/);
    expect(html).not.toContain('\\(');
    expect(html).not.toContain('\\[');
  });

  it('keeps an escaped bracket without its closing pair as the bracket', () => {
    const html = renderMarkdownHtml('A literal \\( and \\[ stay text.');
    expect(html).toContain('<p>A literal ( and [ stay text.</p>');
    expect(html).not.toContain('katex');
  });

  it('links full URLs but not bare file names that look like domains', () => {
    const html = renderMarkdownHtml('See https://example.com/a and edit notes.md or main.py.');
    expect(html).toContain('<a href="https://example.com/a"');
    expect(html).toContain('edit notes.md or main.py.');
    expect(html).not.toContain('http://notes.md');
  });

  it('leaves dollar amounts alone', () => {
    const html = renderMarkdownHtml('It costs $5 and $10 today.');
    expect(html).not.toContain('katex');
    expect(html).toContain('It costs $5 and $10 today.');
  });

  it('shows an unclosed display-math block as text while it streams', () => {
    const html = renderMarkdownHtml('$$\n\\frac{1}{2');
    expect(html).not.toContain('math-block');
  });

  it('turns [n] into a link chip for a web source and a button chip for a project file', () => {
    const html = renderMarkdownHtml('Rain is wet [1], says the report [2].', [WEB_SOURCE, FILE_SOURCE]);
    expect(html).toContain('<a class="citation" href="https://example.com/page" target="_blank" rel="noopener noreferrer"');
    expect(html).toContain('<button type="button" class="citation" data-citation="2"');
    expect(html).toContain('aria-label="Source 2: report.pdf"');
  });

  it('keeps [n] as text when the answer has no such citation', () => {
    const html = renderMarkdownHtml('See [3].', [WEB_SOURCE]);
    expect(html).toContain('See [3].');
    expect(html).not.toContain('citation');
  });

  it('shows a citation with an unsafe url as a button, not a link', () => {
    const html = renderMarkdownHtml('Bad [1]', [{ number: 1, title: 'x', url: 'javascript:alert(1)' }]);
    expect(html).not.toContain('javascript:');
    expect(html).toContain('<button type="button" class="citation" data-citation="1"');
  });
});

describe('math before KaTeX has loaded', () => {
  it('shows the TeX source, escaped, until loadMath() resolves, then renders it with KaTeX', async () => {
    vi.resetModules();
    const fresh = await import('../../../src/app/lib/markdown');
    const source = 'Order: $a<b$\n\n$$\n\\sum_i x_i\n$$';

    const pending = fresh.renderMarkdownHtml(source);
    expect(pending).toContain('<span class="math-pending">a&lt;b</span>');
    expect(pending).toContain('<div class="math-block"><span class="math-pending">\\sum_i x_i');
    expect(pending).not.toContain('katex');

    await fresh.loadMath();
    const rendered = fresh.renderMarkdownHtml(source);
    expect(rendered).not.toContain('math-pending');
    expect(rendered).toContain('class="katex"');
    expect(rendered).toContain('katex-display');
  });
});
