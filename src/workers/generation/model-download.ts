/**
 * Downloads a built-in model's files into Cache Storage under the URLs transformers.js looks up
 * (its cache key is the file's remote URL), so the model then loads from the cache, offline.
 *
 * Large files arrive in parts of PART_BYTES, each stored as it completes under
 * `<url>.carrel-part-<n>`: a cancelled or interrupted download (a reload, a lost connection) resumes at
 * the first missing part with a `Range` request. When every part is there they are joined into
 * one entry (a Blob over the cached bodies, so the browser need not hold the file in memory)
 * and the parts are deleted.
 */
import { TRANSFORMERS_CACHE_NAME } from '../embedding/model-cache';
import { describeLocalModel } from '../../llm/local-models';
import type { DownloadProgress, LocalModelRef } from './generation.api';

export const PART_BYTES = 16 * 1024 * 1024;
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
  const prefixes = listModelFiles(model.modelId).map((file) => modelFileUrlOf(model, file));
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
    const partCount = Math.max(1, Math.ceil(size / partBytes));
    const parts: Blob[] = [];
    for (let index = 0; index < partCount; index += 1) {
      const kept = await cache.match(partKey(url, index));
      if (kept !== undefined) {
        const blob = await kept.blob();
        parts.push(blob);
        loadedBytes += blob.size;
        report(file);
        continue;
      }
      const start = index * partBytes;
      const end = Math.min(size, start + partBytes) - 1;
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
      await cache.put(partKey(url, index), new Response(blob));
      parts.push(blob);
    }
    const whole = new Blob(parts);
    await cache.put(url, new Response(whole, { headers: { 'content-length': String(whole.size) } }));
    await Promise.all(Array.from({ length: partCount }, (_, index) => cache.delete(partKey(url, index))));
  }
  return totalBytes;
}
