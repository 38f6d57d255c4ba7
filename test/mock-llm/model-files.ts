// Model files for the embedding worker, like a self-hosted model folder: `GET /models/<path>`
// serves `test/fixtures/models/<path>` with CORS headers, so the app on another port loads
// them through transformers.js's real fetch path (Settings → Embeddings → self-hosted).

import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const MODELS_PREFIX = '/models/';

const DEFAULT_MODELS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../fixtures/models',
);

const CONTENT_TYPES: Record<string, string> = {
  '.json': 'application/json',
  '.onnx': 'application/octet-stream',
};

export interface MockModelFiles {
  /** Answers the request if its path starts with /models/; false leaves it to the caller. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /**
   * Holds model file responses until the returned function is called, so a test can see a
   * download in progress however fast the machine is: every file, or only those whose path
   * (under /models/) ends with `pathSuffix`, e.g. "onnx/model.onnx". With `fromByte`, the
   * whole file and the parts asked for with a Range from that byte on are held, earlier parts
   * are served (a download in parts gets that far).
   */
  hold(pathSuffix?: string, options?: { fromByte?: number }): () => void;
  /** Paths (under /models/) answered with a whole file, in order (range probes not counted). */
  served(): string[];
  /** Parts answered, as "<path> bytes=<start>-<end>", in order (the `bytes=0-0` size probes not counted). */
  servedRanges(): string[];
  /** Releases any hold and clears the log. */
  reset(): void;
}

export function createMockModelFiles(modelsDir: string = DEFAULT_MODELS_DIR): MockModelFiles {
  const served: string[] = [];
  const servedRanges: string[] = [];
  let held: Promise<void> | null = null;
  let heldSuffix = '';
  let heldFromByte: number | null = null;
  let release: () => void = () => undefined;

  const releaseHold = (): void => {
    release();
    held = null;
    heldSuffix = '';
    heldFromByte = null;
  };

  return {
    async handle(req, res) {
      const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
      if (!url.pathname.startsWith(MODELS_PREFIX)) return false;
      res.setHeader('access-control-allow-origin', '*');
      res.setHeader('access-control-expose-headers', '*');
      if (req.method === 'OPTIONS') {
        res.setHeader('access-control-allow-methods', 'GET, HEAD, OPTIONS');
        res.setHeader(
          'access-control-allow-headers',
          req.headers['access-control-request-headers'] ?? '*',
        );
        res.writeHead(204).end();
        return true;
      }
      const relative = decodeURIComponent(url.pathname.slice(MODELS_PREFIX.length));
      const file = path.resolve(modelsDir, relative);
      // Only files inside the fixtures folder: "../" in a path never escapes it.
      const isInside = file.startsWith(`${modelsDir}${path.sep}`);
      const isFile = isInside && (await stat(file).catch(() => null))?.isFile() === true;
      if (req.method !== 'GET' || !isFile) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
        return true;
      }
      const bytes = await readFile(file);
      const contentType = CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream';
      // A single-range request, as static servers answer it: transformers.js reads a file's
      // size with `Range: bytes=0-0` before downloading. Such probes are never held.
      const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
      if (range) {
        const start = Number(range[1]);
        const end = Math.min(range[2] ? Number(range[2]) : bytes.length - 1, bytes.length - 1);
        if (start > end) {
          res.writeHead(416, { 'content-range': `bytes */${bytes.length}` }).end();
          return true;
        }
        const isProbe = start === 0 && end === 0;
        if (!isProbe) {
          if (
            held !== null &&
            (heldFromByte === null || start >= heldFromByte) &&
            url.pathname.endsWith(heldSuffix)
          )
            await held;
          servedRanges.push(`${url.pathname} bytes=${start}-${end}`);
        }
        res
          .writeHead(206, {
            'content-type': contentType,
            'content-length': String(end - start + 1),
            'content-range': `bytes ${start}-${end}/${bytes.length}`,
          })
          .end(bytes.subarray(start, end + 1));
        return true;
      }
      if (held !== null && url.pathname.endsWith(heldSuffix)) await held;
      served.push(url.pathname);
      res
        .writeHead(200, { 'content-type': contentType, 'content-length': String(bytes.length) })
        .end(bytes);
      return true;
    },
    hold(pathSuffix = '', options = {}) {
      if (held === null) {
        held = new Promise<void>((resolve) => (release = resolve));
        heldSuffix = pathSuffix;
        heldFromByte = options.fromByte ?? null;
      }
      return releaseHold;
    },
    served: () => [...served],
    servedRanges: () => [...servedRanges],
    reset() {
      releaseHold();
      served.length = 0;
      servedRanges.length = 0;
    },
  };
}
