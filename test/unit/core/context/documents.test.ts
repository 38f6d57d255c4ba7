import { describe, expect, it } from 'vitest';
import {
  DOCUMENTS_PREFIX,
  renderDocuments,
  renderDocumentsMessage,
} from '../../../../src/core/context';

describe('documents rendering', () => {
  const docs = [
    { title: 'Hello', metadata: 'status closed', contents: 'Foo' },
    { title: 'World', contents: 'Bar' },
  ];

  it('numbers documents from the first free number so citations never collide', () => {
    const parsed = JSON.parse(renderDocuments(docs, 4)) as {
      documents: Array<{ document: number }>;
    };
    expect(parsed.documents.map((doc) => doc.document)).toEqual([4, 5]);
  });

  it('puts the document number first and the long contents last, omitting absent metadata', () => {
    const parsed = JSON.parse(renderDocuments(docs, 1)) as {
      documents: Array<Record<string, unknown>>;
    };
    expect(parsed.documents.map((doc) => Object.keys(doc))).toEqual([
      ['document', 'title', 'metadata', 'contents'],
      ['document', 'title', 'contents'],
    ]);
  });

  it('prefixes documents placed in a user message with one line, then valid JSON', () => {
    const text = renderDocumentsMessage(docs, 1);
    const [prefix, ...rest] = text.split('\n');
    expect(prefix).toBe(DOCUMENTS_PREFIX);
    expect(() => JSON.parse(rest.join('\n')) as unknown).not.toThrow();
  });

  it('renders an empty list as valid JSON', () => {
    expect(JSON.parse(renderDocuments([], 1))).toEqual({ documents: [] });
  });
});
