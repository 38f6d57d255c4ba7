import { describe, expect, it } from 'vitest';
import { formatJsonText } from '../../../src/app/lib/format-json';

describe('formatJsonText', () => {
  it('indents valid JSON arguments', () => {
    expect(formatJsonText('{"query":"rain","limit":3}')).toBe('{\n  "query": "rain",\n  "limit": 3\n}');
  });

  it('shows arguments that are not JSON (still streaming) verbatim', () => {
    expect(formatJsonText('{"query":"ra')).toBe('{"query":"ra');
  });
});
