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

  it('calls an empty file, or one with only a byte-order mark or blank lines, an empty file', async () => {
    expect(await expectIngestError(extractFixture('empty.txt'), 'empty_file')).toBe(
      '"empty.txt" is an empty file: there is nothing to add.',
    );
    await expectIngestError(extractBytes('bom.txt', [0xef, 0xbb, 0xbf]), 'empty_file');
    await expectIngestError(
      extractBytes(
        'blank.md',
        [...'\n \n'].map((c) => c.charCodeAt(0)),
      ),
      'empty_file',
    );
  });

  it('says a damaged Word document or PDF cannot be read in plain words, not the parser’s', async () => {
    const word = await expectIngestError(extractFixture('broken.docx'), 'broken_file');
    expect(word).toBe(
      'This Word document could not be read: it is damaged, protected, or not a .docx file.',
    );
    const pdf = await expectIngestError(extractFixture('broken.pdf'), 'broken_file');
    expect(pdf).toBe('This PDF could not be read: it is damaged or not a PDF.');
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

function extractBytes(name: string, bytes: readonly number[] | Uint8Array) {
  return extractFile({ name, mimeType: '', bytes: Uint8Array.from(bytes) }, signal);
}

async function extractedText(name: string, bytes: readonly number[] | Uint8Array): Promise<string> {
  const { extracted } = await extractBytes(name, bytes);
  if (extracted.kind !== 'text') throw new Error('expected text');
  return extracted.text;
}

const SAMPLE = 'Café crème, naïve — 東京 🚲\r\nsecond line\n';
const EXPECTED = 'Café crème, naïve — 東京 🚲\nsecond line\n';

function utf16(text: string, order: 'le' | 'be'): number[] {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const pair = [unit & 0xff, unit >> 8];
    bytes.push(...(order === 'le' ? pair : pair.reverse()));
  }
  return bytes;
}

describe('extractFile on text encodings', () => {
  it('reads UTF-8 with or without a byte-order mark, and drops the mark', async () => {
    const utf8 = [...new TextEncoder().encode(SAMPLE)];
    expect(await extractedText('a.txt', utf8)).toBe(EXPECTED);
    expect(await extractedText('a.txt', [0xef, 0xbb, 0xbf, ...utf8])).toBe(EXPECTED);
  });

  it('reads UTF-16 little- and big-endian by their byte-order marks', async () => {
    expect(await extractedText('a.txt', [0xff, 0xfe, ...utf16(SAMPLE, 'le')])).toBe(EXPECTED);
    expect(await extractedText('notes.md', [0xfe, 0xff, ...utf16(SAMPLE, 'be')])).toBe(EXPECTED);
    expect(await extractedText('data.csv', [0xff, 0xfe, ...utf16('a,b\n1,2\n', 'le')])).toBe(
      'a,b\n1,2\n',
    );
  });

  it('recognises UTF-16 without a byte-order mark by its zero bytes', async () => {
    const text = 'Plain English text saved as UTF-16 by an old editor.\n';
    expect(await extractedText('a.txt', utf16(text, 'le'))).toBe(text);
    expect(await extractedText('a.txt', utf16(text, 'be'))).toBe(text);
  });

  it('keeps text with a stray NUL as text, without the NUL', async () => {
    const bytes = [...new TextEncoder().encode('log line one\n\u0000log line two\n')];
    expect(await extractedText('server.log', bytes)).toBe('log line one\nlog line two\n');
  });

  it('reads text that is not UTF-8 as Windows-1252', async () => {
    // "Crème brûlée" in Latin-1 / Windows-1252.
    const bytes = [0x43, 0x72, 0xe8, 0x6d, 0x65, 0x20, 0x62, 0x72, 0xfb, 0x6c, 0xe9, 0x65];
    expect(await extractedText('recipe.txt', bytes)).toBe('Crème brûlée');
  });

  it('refuses a binary file by its content, whatever its name says', async () => {
    const png = readFileSync(join(FIXTURES, 'pixel-art.png'));
    await expectIngestError(extractBytes('pixel-art.txt', png), 'unsupported_type');
    const random = Array.from({ length: 4096 }, (_, i) => (i * 2654435761) >>> 24);
    const message = await expectIngestError(extractBytes('data.csv', random), 'unsupported_type');
    expect(message).toMatch(/binary/);
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
