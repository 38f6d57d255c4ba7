import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DownloadProgress } from '../../../../src/workers/generation/generation.api';
import { choosePartBytes, downloadModel, findPartialDownload, isModelDownloaded, listModelFiles, modelFileUrlOf, PART_BYTES } from '../../../../src/workers/generation/model-download';

const FOLDER = join(import.meta.dirname, '../../../fixtures/models/carrel/tiny-chat');
const MODEL = { modelId: 'carrel/tiny-chat', sourceUrl: 'https://models.example/models' };
const PART = 40_000;

/** Cache Storage as browsers keep it, in memory: keyed by URL, fragments ignored. */
function installCaches(): Map<string, Blob> {
  const entries = new Map<string, Blob>();
  const headers = new Map<string, Headers>();
  const key = (request: RequestInfo | URL) => String(request instanceof Request ? request.url : request).split('#')[0] ?? '';
  const cache = {
    match: (request: RequestInfo | URL) => {
      const blob = entries.get(key(request));
      return Promise.resolve(blob === undefined ? undefined : new Response(blob, { headers: headers.get(key(request)) }));
    },
    put: async (request: RequestInfo | URL, response: Response) => {
      headers.set(key(request), new Headers(response.headers));
      entries.set(key(request), await response.blob());
    },
    delete: (request: RequestInfo | URL) => Promise.resolve(entries.delete(key(request))),
    keys: (request?: RequestInfo | URL) =>
      Promise.resolve([...entries.keys()].filter((url) => request === undefined || url === key(request)).map((url) => new Request(url))),
  };
  vi.stubGlobal('caches', { open: () => Promise.resolve(cache) });
  return entries;
}

/** The folder on a static host answering Range requests; `cutRange` breaks off once, midway. */
function installServer(state: { ranges: string[]; cutRange?: string }) {
  vi.stubGlobal('fetch', async (input: string, init?: RequestInit) => {
    const url = input;
    const path = url.slice(`${MODEL.sourceUrl}/${MODEL.modelId}/`.length);
    const bytes = new Uint8Array(await readFile(join(FOLDER, path)).catch(() => Buffer.alloc(0)));
    if (bytes.length === 0) return new Response('Not found', { status: 404 });
    const range = new Headers(init?.headers).get('range');
    if (range === null) return new Response(bytes);
    state.ranges.push(`${path} ${range}`);
    const [start, end] = range.replace('bytes=', '').split('-').map(Number) as [number, number];
    const body = bytes.slice(start, Math.min(end, bytes.length - 1) + 1);
    const headers = { 'content-range': `bytes ${start}-${start + body.length - 1}/${bytes.length}` };
    if (range === state.cutRange) {
      const limit = 1_000;
      state.cutRange = undefined;
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(body.slice(0, limit));
          controller.error(new TypeError('network error'));
        },
      });
      return new Response(stream, { status: 206, headers });
    }
    return new Response(body, { status: 206, headers });
  });
}

beforeEach(() => vi.unstubAllGlobals());
afterEach(() => vi.unstubAllGlobals());

describe('downloading a built-in model into the browser cache', () => {
  it('stores every file under the URL transformers.js reads, reporting bytes up to the total', async () => {
    const entries = installCaches();
    installServer({ ranges: [] });
    const progress: DownloadProgress[] = [];
    const total = await downloadModel(MODEL, new AbortController().signal, (p) => progress.push(p), () => 0, PART);
    expect(await isModelDownloaded(MODEL)).toBe(true);
    const weights = await readFile(join(FOLDER, 'onnx/model_quantized.onnx'));
    const stored = entries.get(modelFileUrlOf(MODEL, 'onnx/model_quantized.onnx'));
    expect(Buffer.from(await stored!.arrayBuffer()).equals(weights)).toBe(true);
    expect(progress.at(-1)).toMatchObject({ loadedBytes: total, totalBytes: total });
    // Only whole files remain: the parts were joined and removed.
    expect([...entries.keys()].sort()).toEqual(listModelFiles(MODEL.modelId).map((file) => modelFileUrlOf(MODEL, file)).sort());
  });

  it('after a broken connection, resumes at the first missing part instead of starting over', async () => {
    const entries = installCaches();
    // The first download gets two parts of the weights, then the connection drops in the third.
    const state: { ranges: string[]; cutRange?: string } = { ranges: [], cutRange: `bytes=${2 * PART}-${3 * PART - 1}` };
    installServer(state);
    const weights = await readFile(join(FOLDER, 'onnx/model_quantized.onnx'));
    const first = downloadModel(MODEL, new AbortController().signal, () => undefined, () => 0, PART);
    await expect(first).rejects.toThrow();
    expect(await isModelDownloaded(MODEL)).toBe(false);

    state.ranges.length = 0;
    await downloadModel(MODEL, new AbortController().signal, () => undefined, () => 0, PART);
    const fetchedAgain = state.ranges.filter((range) => range.startsWith('onnx/') && !range.endsWith('=0-0'));
    expect(fetchedAgain[0]).toBe(`onnx/model_quantized.onnx bytes=${2 * PART}-${3 * PART - 1}`);
    expect(fetchedAgain).toHaveLength(Math.ceil(weights.length / PART) - 2);
    const stored = entries.get(modelFileUrlOf(MODEL, 'onnx/model_quantized.onnx'));
    expect(Buffer.from(await stored!.arrayBuffer()).equals(weights)).toBe(true);
  });

  it('tells a reloaded page which download did not finish and how much of it is kept, and nothing once it finished', async () => {
    installCaches();
    const state: { ranges: string[]; cutRange?: string } = { ranges: [], cutRange: `bytes=${2 * PART}-${3 * PART - 1}` };
    installServer(state);
    await expect(findPartialDownload()).resolves.toBeNull();
    await expect(downloadModel(MODEL, new AbortController().signal, () => undefined, () => 0, PART)).rejects.toThrow();
    const small = await Promise.all(
      listModelFiles(MODEL.modelId)
        .filter((file) => !file.endsWith('.onnx'))
        .map(async (file) => (await readFile(join(FOLDER, file))).length),
    );
    const weights = await readFile(join(FOLDER, 'onnx/model_quantized.onnx'));
    const partial = await findPartialDownload();
    expect(partial).toEqual({
      model: MODEL,
      loadedBytes: small.reduce((sum, size) => sum + size, 0) + 2 * PART,
      totalBytes: small.reduce((sum, size) => sum + size, 0) + weights.length,
    });

    await downloadModel(MODEL, new AbortController().signal, () => undefined, () => 0, PART);
    await expect(findPartialDownload()).resolves.toBeNull();
  });

  it('fetches again a kept part that was cut at other bytes than this download cuts', async () => {
    installCaches();
    const state: { ranges: string[]; cutRange?: string } = { ranges: [], cutRange: `bytes=${2 * PART}-${3 * PART - 1}` };
    installServer(state);
    await expect(downloadModel(MODEL, new AbortController().signal, () => undefined, () => 0, PART)).rejects.toThrow();
    state.ranges.length = 0;
    // Smaller parts now: the two kept parts do not cover the new parts' bytes, so none is used.
    await downloadModel(MODEL, new AbortController().signal, () => undefined, () => 0, PART / 2);
    const weights = await readFile(join(FOLDER, 'onnx/model_quantized.onnx'));
    const fetched = state.ranges.filter((range) => range.startsWith('onnx/') && !range.endsWith('=0-0'));
    expect(fetched[0]).toBe(`onnx/model_quantized.onnx bytes=0-${PART / 2 - 1}`);
    expect(fetched).toHaveLength(Math.ceil(weights.length / (PART / 2)));
    expect(await isModelDownloaded(MODEL)).toBe(true);
  });

  it('cuts a large file into parts of 16 MiB and a small one into four parts, never below 32 KiB', () => {
    expect(choosePartBytes(410_000_000)).toBe(PART_BYTES);
    expect(choosePartBytes(162_106)).toBe(40_527);
    expect(choosePartBytes(4_540)).toBe(32 * 1024);
  });
});
