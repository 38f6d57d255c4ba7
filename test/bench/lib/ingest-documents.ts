import { crc32, deflateRawSync } from 'node:zlib';
import { createRandom } from './stats';
import { createProse } from './synthetic-text';

/**
 * Real files of a given size for the ingest bench: plain text, Markdown, PDF and Word, each made
 * of the same kind of prose (sections of paragraphs under headings), written by hand so no PDF or
 * Office tool is needed. pdf.js and mammoth read them like any other file of their kind.
 */

export type DocumentKind = 'text' | 'markdown' | 'pdf' | 'docx';

export const DOCUMENT_KINDS: readonly DocumentKind[] = ['text', 'markdown', 'pdf', 'docx'];

export const EXTENSIONS: Record<DocumentKind, string> = {
  text: 'txt',
  markdown: 'md',
  pdf: 'pdf',
  docx: 'docx',
};

interface Section {
  heading: string;
  paragraphs: string[];
}

/** Sections of 3–6 paragraphs of 40–160 words until about `textBytes` characters. */
function createSections(seed: number, textBytes: number): Section[] {
  const random = createRandom(seed);
  const sections: Section[] = [];
  let length = 0;
  for (let index = 0; length < textBytes; index++) {
    const heading = `Section ${index + 1}: ${createProse(random, 4).replace(/\.$/, '')}`;
    const paragraphs: string[] = [];
    const count = 3 + Math.floor(random() * 4);
    for (let paragraph = 0; paragraph < count && length < textBytes; paragraph++) {
      const text = createProse(random, 40 + Math.floor(random() * 120));
      paragraphs.push(text);
      length += text.length + 2;
    }
    sections.push({ heading, paragraphs });
    length += heading.length + 2;
  }
  return sections;
}

function writeText(sections: readonly Section[]): string {
  return sections
    .map((section) => [section.heading, ...section.paragraphs].join('\n\n'))
    .join('\n\n');
}

function writeMarkdown(sections: readonly Section[]): string {
  return sections
    .map((section, index) =>
      [`${index % 5 === 0 ? '#' : '##'} ${section.heading}`, ...section.paragraphs].join('\n\n'),
    )
    .join('\n\n');
}

const PAGE_LINES = 48;
const LINE_CHARS = 90;

/** Breaks a paragraph into lines of at most LINE_CHARS characters, at spaces. */
function wrapLine(text: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line.length > 0 && line.length + 1 + word.length > LINE_CHARS) {
      lines.push(line);
      line = word;
    } else line = line.length === 0 ? word : `${line} ${word}`;
  }
  if (line.length > 0) lines.push(line);
  return lines;
}

function escapePdf(text: string): string {
  return text.replace(/[\\()]/g, (character) => `\\${character}`);
}

/** A PDF 1.4 with one Helvetica text stream per page of PAGE_LINES lines. */
function writePdf(sections: readonly Section[]): Uint8Array {
  const lines: string[] = [];
  for (const section of sections) {
    lines.push(section.heading, '');
    for (const paragraph of section.paragraphs) lines.push(...wrapLine(paragraph), '');
  }
  const pages: string[][] = [];
  for (let start = 0; start < lines.length; start += PAGE_LINES)
    pages.push(lines.slice(start, start + PAGE_LINES));

  const objects: string[] = ['', '', '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'];
  const kids: number[] = [];
  for (const page of pages) {
    const ops = ['BT', '/F1 11 Tf', '14 TL', '56 750 Td'];
    for (const line of page) ops.push(`(${escapePdf(line)}) Tj T*`);
    ops.push('ET');
    const stream = ops.join('\n');
    objects.push(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
    const content = objects.length;
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${content} 0 R >>`,
    );
    kids.push(objects.length);
  }
  objects[0] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[1] = `<< /Type /Pages /Kids [${kids.map((kid) => `${kid} 0 R`).join(' ')}] /Count ${kids.length} >>`;

  // The prose is ASCII, so string lengths are byte offsets.
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(out.length);
    out += `${index + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

/** A zip archive of deflated entries (what a .docx is). */
function writeZip(entries: ReadonlyArray<{ name: string; text: string }>): Uint8Array {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const data = Buffer.from(entry.text, 'utf8');
    const packed = deflateRawSync(data);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(0, 10);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(0, 8);
    header.writeUInt16LE(8, 10);
    header.writeUInt32LE(0, 12);
    header.writeUInt32LE(crc, 16);
    header.writeUInt32LE(packed.length, 20);
    header.writeUInt32LE(data.length, 24);
    header.writeUInt16LE(name.length, 28);
    header.writeUInt32LE(offset, 42);
    central.push(header, name);
    parts.push(local, name, packed);
    offset += local.length + name.length + packed.length;
  }
  const centralSize = central.reduce((total, part) => total + part.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...parts, ...central, end]));
}

function escapeXml(text: string): string {
  return text.replace(/[<>&]/g, (character) =>
    character === '<' ? '&lt;' : character === '>' ? '&gt;' : '&amp;',
  );
}

function writeDocx(sections: readonly Section[]): Uint8Array {
  const paragraph = (text: string, style?: string): string =>
    `<w:p>${style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : ''}<w:r><w:t xml:space="preserve">${escapeXml(text)}</w:t></w:r></w:p>`;
  const body = sections
    .map((section) =>
      [paragraph(section.heading, 'Heading1'), ...section.paragraphs.map((text) => paragraph(text))].join(''),
    )
    .join('');
  return writeZip([
    {
      name: '[Content_Types].xml',
      text:
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
        '</Types>',
    },
    {
      name: '_rels/.rels',
      text:
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>' +
        '</Relationships>',
    },
    {
      name: 'word/document.xml',
      text:
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
        '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">' +
        `<w:body>${body}</w:body></w:document>`,
    },
  ]);
}

/**
 * One file of `kind` holding about `textBytes` characters of prose; `seed` makes each file's text
 * its own (a project of identical files would be stored once: duplicates are skipped by hash).
 */
export function createDocument(kind: DocumentKind, seed: number, textBytes: number): Uint8Array {
  const sections = createSections(seed, textBytes);
  switch (kind) {
    case 'text':
      return new TextEncoder().encode(writeText(sections));
    case 'markdown':
      return new TextEncoder().encode(writeMarkdown(sections));
    case 'pdf':
      return writePdf(sections);
    case 'docx':
      return writeDocx(sections);
  }
}
