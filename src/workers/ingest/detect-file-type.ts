import type { ChunkTextKind } from '../../core/rag';

export type IngestFileType =
  'text' | 'markdown' | 'code' | 'html' | 'csv' | 'json' | 'pdf' | 'docx' | 'image';

const CODE_EXTENSIONS = new Set(
  'ts tsx js jsx mjs cjs py rb go rs java kt kts swift c h cc cpp hpp cs php sh bash zsh ps1 sql r scala lua pl dart ex exs erl hs clj ml fs vue svelte css scss less yaml yml toml ini xml gradle dockerfile makefile'.split(
    ' ',
  ),
);
const TEXT_EXTENSIONS = new Set(['txt', 'text', 'log', 'rst', 'tex', 'org', 'adoc']);
const IMAGE_EXTENSIONS = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp']);

function extensionOf(name: string): string {
  const base = name.toLowerCase().split('/').pop() ?? '';
  if (base === 'dockerfile' || base === 'makefile') return base;
  const dot = base.lastIndexOf('.');
  return dot < 0 ? '' : base.slice(dot + 1);
}

/** The type by extension first (browsers often report code as '' or text/plain), then MIME. */
export function detectFileType(name: string, mimeType: string): IngestFileType | null {
  const extension = extensionOf(name);
  if (extension === 'md' || extension === 'markdown' || extension === 'mdx') return 'markdown';
  if (extension === 'html' || extension === 'htm' || extension === 'xhtml') return 'html';
  if (extension === 'csv' || extension === 'tsv') return 'csv';
  if (extension === 'json' || extension === 'jsonl' || extension === 'ndjson') return 'json';
  if (extension === 'pdf') return 'pdf';
  if (extension === 'docx') return 'docx';
  if (IMAGE_EXTENSIONS.has(extension)) return 'image';
  if (CODE_EXTENSIONS.has(extension)) return 'code';
  if (TEXT_EXTENSIONS.has(extension)) return 'text';
  const mime = mimeType.toLowerCase().split(';')[0]?.trim() ?? '';
  if (mime === 'application/pdf') return 'pdf';
  if (mime === 'application/vnd.openxmlformats-officedocument.wordprocessingml.document')
    return 'docx';
  if (mime === 'text/html') return 'html';
  if (mime === 'text/markdown') return 'markdown';
  if (mime === 'text/csv') return 'csv';
  if (mime === 'application/json') return 'json';
  if (mime.startsWith('image/') && IMAGE_EXTENSIONS.has(mime.slice('image/'.length)))
    return 'image';
  if (mime.startsWith('text/')) return 'text';
  return null;
}

/** How the chunker should read the extracted text of a type. */
export function chunkKindOf(type: IngestFileType): ChunkTextKind {
  switch (type) {
    case 'markdown':
    case 'html':
    case 'docx':
      return 'markdown';
    case 'code':
    case 'csv':
    case 'json':
      return 'code';
    case 'text':
    case 'pdf':
    case 'image':
      return 'plain';
  }
}
