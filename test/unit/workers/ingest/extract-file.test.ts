import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractFile, MAX_FILE_BYTES } from '../../../../src/workers/ingest/extract-file';
import { renderHtmlBlocks } from '../../../../src/workers/ingest/extractors/html.extractor';
import type { IngestErrorCode } from '../../../../src/workers/ingest/ingest-errors';

const FIXTURES = join(import.meta.dirname, '../../../fixtures/documents');
const signal = new AbortController().signal;

async function extractFixture(name: string, mimeType = '') {
  return extractFile(
    { name, mimeType, bytes: new Uint8Array(readFileSync(join(FIXTURES, name))) },
    signal,
  );
}

async function expectIngestError(
  promise: Promise<unknown>,
  code: IngestErrorCode,
): Promise<string> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toMatchObject({ name: 'IngestError', code });
  return (error as Error).message;
}

describe('extractFile', () => {
  it('reads the text layer of a multi-page PDF and records where each page starts', async () => {
    const { type, extracted } = await extractFixture('report.pdf', 'application/pdf');
    expect(type).toBe('pdf');
    if (extracted.kind !== 'text') throw new Error('expected text');
    expect(extracted.pageMap?.map((span) => span.page)).toEqual([1, 2, 3]);
    const pageText = (page: number) => {
      const spans = extracted.pageMap ?? [];
      return extracted.text.slice(spans[page - 1]?.offset, spans[page]?.offset);
    };
    expect(pageText(1)).toContain('Revenue grew by twelve percent');
    expect(pageText(2)).toContain('warehouse in Lyon');
    expect(pageText(3)).toContain('Lisbon office');
    expect(pageText(2)).not.toContain('Lisbon');
  });

  it('refuses a password-protected PDF with its own error', async () => {
    const message = await expectIngestError(extractFixture('encrypted.pdf'), 'encrypted_pdf');
    expect(message).toMatch(/password/);
  });

  it('refuses a damaged PDF as broken', async () => {
    await expectIngestError(extractFixture('broken.pdf'), 'broken_file');
  });

  it('reports a PDF without a text layer as having no extractable text', async () => {
    const message = await expectIngestError(extractFixture('scanned.pdf'), 'no_text');
    expect(message).toMatch(/scan/);
  });

  it('reads the headings and paragraphs of a Word document', async () => {
    const { extracted } = await extractFixture('minutes.docx');
    expect(extracted).toEqual({
      kind: 'text',
      text: '# Meeting minutes\n\nThe team agreed to move the release to the second week of June.\n\nMarta will write the migration guide for the storage format.',
    });
  });

  it('refuses a damaged Word document as broken', async () => {
    await expectIngestError(extractFixture('broken.docx'), 'broken_file');
  });

  it('keeps the readable text of a web page and drops navigation, scripts and footers', async () => {
    const { type, extracted } = await extractFixture('article.html', 'text/html');
    expect(type).toBe('html');
    if (extracted.kind !== 'text') throw new Error('expected text');
    expect(
      extracted.text.startsWith('# Night trains return to Europe\n\nAfter decades of decline'),
    ).toBe(true);
    expect(extracted.text).toContain('track access fees');
    expect(extracted.text).not.toMatch(/Log in|tracking|Copyright|color: red/);
  });

  it('reads source code by its extension even without a MIME type', async () => {
    const { type, extracted } = await extractFixture('retry.ts');
    expect(type).toBe('code');
    expect(extracted.kind === 'text' && extracted.text).toContain(
      'export async function retryWithBackoff',
    );
  });

  it('keeps CSV as written and pretty-prints JSON so it splits on lines', async () => {
    const csv = await extractFixture('inventory.csv');
    expect(csv.extracted).toEqual({
      kind: 'text',
      text: readFileSync(join(FIXTURES, 'inventory.csv'), 'utf8'),
    });
    const json = await extractFixture('settings.json');
    expect(json.extracted.kind === 'text' && json.extracted.text.split('\n')).toContain(
      '  "retentionDays": 90',
    );
  });

  it('keeps an image as an image with its pixel size', async () => {
    const { extracted } = await extractFixture('pixel-art.png', 'image/png');
    expect(extracted).toEqual({ kind: 'image', width: 12, height: 7 });
  });

  it('reports an empty text file as having no extractable text', async () => {
    await expectIngestError(extractFixture('empty.txt'), 'no_text');
  });

  it('refuses an unsupported type and names it', async () => {
    const message = await expectIngestError(
      extractFile(
        { name: 'song.mp3', mimeType: 'audio/mpeg', bytes: new Uint8Array([1, 2, 3]) },
        signal,
      ),
      'unsupported_type',
    );
    expect(message).toContain('song.mp3');
  });

  it('refuses a file over the size limit before reading it', async () => {
    const bytes = new Uint8Array(MAX_FILE_BYTES + 1);
    await expectIngestError(
      extractFile({ name: 'huge.txt', mimeType: 'text/plain', bytes }, signal),
      'too_large',
    );
  });

  it('stops when cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    await expectIngestError(
      extractFixture('report.pdf').then(() =>
        extractFile(
          { name: 'a.txt', mimeType: '', bytes: new Uint8Array([65]) },
          controller.signal,
        ),
      ),
      'cancelled',
    );
  });
});

describe('renderHtmlBlocks', () => {
  it('keeps code blocks verbatim inside fences and list items as their own blocks', () => {
    expect(
      renderHtmlBlocks(
        '<h2>Setup</h2><ul><li>one</li><li>two  words</li></ul><pre>if (x) {\n  run();\n}\n</pre>',
      ),
    ).toBe('## Setup\n\none\n\ntwo words\n\n```\nif (x) {\n  run();\n}\n```');
  });
});
