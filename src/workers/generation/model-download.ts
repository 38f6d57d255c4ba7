/**
 * Downloads a built-in model's files into Cache Storage under the URLs transformers.js looks up
 * (its cache key is the file's remote URL), so the model then loads from the cache, offline.
 *
 * Files arrive in parts (PART_BYTES for large ones, a quarter of the file for small ones), each
 * stored as it completes under `<url>.carrel-part-<n>`: a cancelled or interrupted download (a
 * reload, a lost connection) resumes at the first missing part with a `Range` request. When every
 * part is there they are joined into one entry (a Blob over the cached bodies, so the browser need
 * not hold the file in memory) and the parts are deleted. Until then a small record of the
 * download (`<model folder>/.carrel-download`) lets a reloaded page show what arrived and resume.
 */
import type { ModelFile } from '../embedding/embedding.api';
import { importModelFiles, TRANSFORMERS_CACHE_NAME } from '../embedding/model-cache';
import { describeLocalModel } from '../../core/model/local-models';
import type { DownloadProgress, LocalModelRef, PartialDownload } from './generation.api';

export const PART_BYTES = 16 * 1024 * 1024;
/** Small files come in this many parts at least, so an interruption loses little of them too. */
const MIN_PARTS = 4;
const MIN_PART_BYTES = 32 * 1024;
const RECORD_FILE = '.carrel-download';
const HUB_ORIGIN = 'https://huggingface.co';
const SPEED_WINDOW_MS = 3_000;

/** The files a causal language model needs, in download order (small ones first). */
export function listModelFiles(modelId: string): string[] {
  const onnx = describeLocalModel(modelId).dtype === 'q8' ? 'onnx/model_quantized.onnx' : 'onnx/model_q4f16.onnx';
  return ['config.json', 'generation_config.json', 'tokenizer_config.json', 'tokenizer.json', onnx];
}

/** Optional files: a folder without them still works (transformers.js uses defaults). */
const OPTIONAL_FILES = new Set(['generation_config.json']);

export function isHubSource(sourceUrl: string): boolean {
  return sourceUrl.replace(/\/+$/, '') === HUB_ORIGIN;
}

/** transformers.js's `remoteHost` and `remotePathTemplate` for a source. */
export function remoteLayoutOf(sourceUrl: string): { host: string; template: string } {
  return isHubSource(sourceUrl)
    ? { host: `${HUB_ORIGIN}/`, template: '{model}/resolve/{revision}/' }
    : { host: `${sourceUrl.replace(/\/+$/, '')}/`, template: '{model}/' };
}

/** The URL a file is fetched from, which is also its key in the cache. */
export function modelFileUrlOf(model: LocalModelRef, file: string): string {
  const { host, template } = remoteLayoutOf(model.sourceUrl);
  return `${host}${template.replaceAll('{model}', model.modelId).replaceAll('{revision}', 'main')}${file}`;
}

/** A URL of its own (Cache Storage ignores `#fragments`, so `<url>#part-0` would be `<url>`). */
const partKey = (url: string, index: number): string => `${url}.carrel-part-${index}`;
const PART_RANGE_HEADER = 'x-carrel-range';

/** The part size for a file of `size` bytes: up to `maxPartBytes`, at least MIN_PARTS parts. */
export function choosePartBytes(size: number, maxPartBytes: number = PART_BYTES): number {
  return Math.min(maxPartBytes, Math.max(MIN_PART_BYTES, Math.ceil(size / MIN_PARTS)));
}


/**
 * Whether `url` is in the cache, asked without opening its body: a Response or Blob read from the
 * cache keeps its entry's space in use after the entry is deleted, until it is garbage-collected.
 */
async function isCached(cache: Cache, url: string): Promise<boolean> {
  return (await cache.keys(url)).length > 0;
}

/** A cached file's size, from the header the download stored, else by reading it into memory. */
async function readCachedSize(cache: Cache, url: string): Promise<number | null> {
  const cached = await cache.match(url);
  if (cached === undefined) return null;
  const length = Number(cached.headers.get('content-length'));
  if (Number.isFinite(length) && length > 0) {
    await cached.body?.cancel();
    return length;
  }
  return (await cached.arrayBuffer()).byteLength;
}

export async function isModelDownloaded(model: LocalModelRef): Promise<boolean> {
  if (typeof caches === 'undefined') return false;
  const cache = await caches.open(TRANSFORMERS_CACHE_NAME);
  const found = await Promise.all(listModelFiles(model.modelId).map((file) => isCached(cache, modelFileUrlOf(model, file))));
  return found.every(Boolean);
}

export async function deleteModelFiles(model: LocalModelRef): Promise<void> {
  const cache = await caches.open(TRANSFORMERS_CACHE_NAME);
  const prefixes = [...listModelFiles(model.modelId), RECORD_FILE].map((file) => modelFileUrlOf(model, file));
  const keys = await cache.keys();
  await Promise.all(keys.filter((request) => prefixes.some((prefix) => request.url.startsWith(prefix))).map((request) => cache.delete(request)));
}

interface SpeedMeter {
  add(bytes: number): void;
  bytesPerSecond(): number;
}

function createSpeedMeter(now: () => number): SpeedMeter {
  const samples: { at: number; bytes: number }[] = [];
  return {
    add(bytes) {
      samples.push({ at: now(), bytes });
      while (samples.length > 1 && now() - (samples[0]?.at ?? 0) > SPEED_WINDOW_MS) samples.shift();
    },
    bytesPerSecond() {
      const first = samples[0];
      const last = samples.at(-1);
      if (first === undefined || last === undefined || last.at === first.at) return 0;
      const bytes = samples.slice(1).reduce((sum, sample) => sum + sample.bytes, 0);
      return (bytes * 1000) / (last.at - first.at);
    },
  };
}

async function readSize(url: string, signal: AbortSignal): Promise<number | null> {
  // A one-byte range answers with the whole size in Content-Range, on the hub and static hosts.
  const response = await fetch(url, { headers: { Range: 'bytes=0-0' }, signal });
  if (response.status === 404) return null;
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  await response.body?.cancel();
  const range = /\/(\d+)$/.exec(response.headers.get('content-range') ?? '');
  if (range) return Number(range[1]);
  const length = response.headers.get('content-length');
  return response.status === 200 && length !== null ? Number(length) : 0;
}

/**
 * Stores a model folder picked on this device where a hub download would put it (the code the
 * embedding model's import uses), so it then loads as the hub's copy does, offline. Only the files
 * the model reads are kept; a missing optional file gets the empty object a download leaves.
 */
export async function importModelFolder(modelId: string, files: readonly ModelFile[]): Promise<number> {
  const needed = listModelFiles(modelId);
  const { bytes } = await importModelFiles(
    modelId,
    files,
    needed.filter((file) => !OPTIONAL_FILES.has(file)),
    (path) => needed.includes(path),
  );
  const model: LocalModelRef = { modelId, sourceUrl: HUB_ORIGIN };
  const cache = await caches.open(TRANSFORMERS_CACHE_NAME);
  for (const file of OPTIONAL_FILES) {
    const url = modelFileUrlOf(model, file);
    if (!(await isCached(cache, url))) await cache.put(url, new Response('{}', { headers: { 'content-type': 'application/json' } }));
  }
  return bytes;
}

/** Bytes of `url` in the cache: the whole file, else the parts kept of it. */
async function readKeptBytes(cache: Cache, url: string, keys: readonly string[]): Promise<number> {
  const whole = await readCachedSize(cache, url);
  if (whole !== null) return whole;
  const sizes = await Promise.all(keys.filter((key) => key.startsWith(`${url}.carrel-part-`)).map((key) => readCachedSize(cache, key)));
  return sizes.reduce<number>((sum, size) => sum + (size ?? 0), 0);
}

/** The download a previous page started and did not finish, if any, with what it kept. */
export async function findPartialDownload(): Promise<PartialDownload | null> {
  if (typeof caches === 'undefined') return null;
  const cache = await caches.open(TRANSFORMERS_CACHE_NAME);
  const keys = (await cache.keys()).map((request) => request.url);
  const recordUrl = keys.find((key) => key.endsWith(`/${RECORD_FILE}`));
  if (recordUrl === undefined) return null;
  const record = (await (await cache.match(recordUrl))?.json().catch(() => null)) as { model?: LocalModelRef; totalBytes?: number } | null;
  const model = record?.model;
  if (model === undefined || typeof model.modelId !== 'string' || typeof model.sourceUrl !== 'string') return null;
  const kept = await Promise.all(listModelFiles(model.modelId).map((file) => readKeptBytes(cache, modelFileUrlOf(model, file), keys)));
  return { model: { modelId: model.modelId, sourceUrl: model.sourceUrl }, loadedBytes: kept.reduce((sum, bytes) => sum + bytes, 0), totalBytes: record?.totalBytes ?? 0 };
}

/** Fetches every file not yet cached; throws an AbortError when cancelled. */
export async function downloadModel(
  model: LocalModelRef,
  signal: AbortSignal,
  onProgress: (progress: DownloadProgress) => void,
  now: () => number = () => performance.now(),
  partBytes: number = PART_BYTES,
): Promise<number> {
  const cache = await caches.open(TRANSFORMERS_CACHE_NAME);
  const files = listModelFiles(model.modelId);
  const sizes = new Map<string, number>();
  for (const file of files) {
    const url = modelFileUrlOf(model, file);
    const cachedSize = await readCachedSize(cache, url);
    if (cachedSize !== null) {
      sizes.set(file, cachedSize);
      continue;
    }
    const size = await readSize(url, signal);
    if (size === null && !OPTIONAL_FILES.has(file)) throw new Error(`${file} is missing at ${url}`);
    sizes.set(file, size ?? 0);
  }
  const totalBytes = [...sizes.values()].reduce((sum, size) => sum + size, 0);
  const recordUrl = modelFileUrlOf(model, RECORD_FILE);
  await cache.put(recordUrl, Response.json({ model: { modelId: model.modelId, sourceUrl: model.sourceUrl }, totalBytes }));
  const meter = createSpeedMeter(now);
  let loadedBytes = 0;
  const report = (file: string) => onProgress({ loadedBytes, totalBytes, bytesPerSecond: meter.bytesPerSecond(), file });

  for (const file of files) {
    const url = modelFileUrlOf(model, file);
    const size = sizes.get(file) ?? 0;
    if (await isCached(cache, url)) {
      loadedBytes += size;
      report(file);
      continue;
    }
    if (size === 0 && OPTIONAL_FILES.has(file)) {
      // Missing on the server: an empty object keeps transformers.js on its defaults offline.
      await cache.put(url, new Response('{}', { headers: { 'content-type': 'application/json' } }));
      continue;
    }
    const filePartBytes = choosePartBytes(size, partBytes);
    const partCount = Math.max(1, Math.ceil(size / filePartBytes));
    const parts: Blob[] = [];
    for (let index = 0; index < partCount; index += 1) {
      const start = index * filePartBytes;
      const end = Math.min(size, start + filePartBytes) - 1;
      const range = `${start}-${end}/${size}`;
      const kept = await cache.match(partKey(url, index));
      // A part is used only if it covers this very range (an older version may have cut differently).
      if (kept !== undefined && kept.headers.get(PART_RANGE_HEADER) === range) {
        const blob = await kept.blob();
        parts.push(blob);
        loadedBytes += blob.size;
        report(file);
        continue;
      }
      await kept?.body?.cancel();
      const response = await fetch(url, { headers: partCount > 1 ? { Range: `bytes=${start}-${end}` } : {}, signal });
      if (!response.ok || response.body === null) throw new Error(`${url} answered ${response.status}`);
      const chunks: Uint8Array[] = [];
      const reader = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        loadedBytes += value.byteLength;
        meter.add(value.byteLength);
        report(file);
      }
      const blob = new Blob(chunks as BlobPart[]);
      // A server that ignored the Range header sent the whole file: never stored as one part.
      if (size > 0 && blob.size !== end - start + 1) throw new Error(`${url} sent ${blob.size} bytes for bytes ${start}-${end}`);
      await cache.put(partKey(url, index), new Response(blob, { headers: { 'content-length': String(blob.size), [PART_RANGE_HEADER]: range } }));
      parts.push(blob);
    }
    const whole = new Blob(parts);
    await cache.put(url, new Response(whole, { headers: { 'content-length': String(whole.size) } }));
    await Promise.all(Array.from({ length: partCount }, (_, index) => cache.delete(partKey(url, index))));
  }
  await cache.delete(recordUrl);
  return totalBytes;
}
