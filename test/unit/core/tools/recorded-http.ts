import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { HttpFetcher, HttpRequest } from '../../../../src/core/ports';

const RECORDED_DIR = fileURLToPath(new URL('../../../mock-llm/web/recorded/', import.meta.url));

export function readRecorded(name: string): string {
  return readFileSync(`${RECORDED_DIR}${name}`, 'utf8');
}

/** An HttpFetcher that answers every request with one recorded body and keeps the requests. */
export function createRecordedHttp(
  status: number,
  bodyFile: string,
): HttpFetcher & { calls: Array<{ url: string; request: HttpRequest }> } {
  const calls: Array<{ url: string; request: HttpRequest }> = [];
  return {
    calls,
    fetch(url, request) {
      calls.push({ url, request });
      return Promise.resolve({
        ok: true,
        value: {
          status,
          headers: { 'content-type': 'application/json' },
          url,
          bodyText: readRecorded(bodyFile),
          isTruncated: false,
        },
      });
    },
  };
}
