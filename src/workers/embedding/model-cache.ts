/**
 * Model files in the browser's Cache Storage, where transformers.js looks before any network
 * request: files imported from a local folder are written there under their hub URL, so an
 * imported model loads exactly like a downloaded one, offline.
 */
import type { ModelFile } from './embedding.api';

/** The cache transformers.js opens when `env.useBrowserCache` is on (`env.cacheKey`). */
export const TRANSFORMERS_CACHE_NAME = 'transformers-cache';
const REQUIRED_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json'];


/** Where the Hugging Face Hub serves a model's files (transformers.js's default host). */
export const HUB_HOST = 'https://huggingface.co/';
export const HUB_PATH_TEMPLATE = '{model}/resolve/{revision}/';

/** The hub URL of a model file: the key a downloaded or imported file has in the cache. */
export function modelFileUrl(modelId: string, path: string): string {
  const folder = HUB_PATH_TEMPLATE.replaceAll('{model}', modelId).replaceAll('{revision}', 'main');
  return `${HUB_HOST}${folder}${path}`;
}

export function onnxFileOf(isQuantized: boolean): string {
  return isQuantized ? 'onnx/model_quantized.onnx' : 'onnx/model.onnx';
}

/**
 * Drops the picked folder's own name from relative paths ("all-MiniLM-L6-v2/config.json" →
 * "config.json") so a user may pick the model folder or its parent's copy of it.
 */
export function normalizeModelPaths(files: readonly ModelFile[]): ModelFile[] {
  const cleaned = files.map((file) => ({ ...file, path: file.path.replace(/^\/+/, '') }));
  const configPath = cleaned
    .map((file) => file.path)
    .find((path) => path === 'config.json' || path.endsWith('/config.json'));
  const prefix = configPath === undefined ? '' : configPath.slice(0, -'config.json'.length);
  return cleaned.flatMap((file) =>
    file.path.startsWith(prefix) ? [{ ...file, path: file.path.slice(prefix.length) }] : [],
  );
}

/** Writes an imported model into the cache; throws when the folder is not a model folder. */
export async function importModelFiles(
  modelId: string,
  files: readonly ModelFile[],
  isQuantized: boolean,
): Promise<number> {
  const normalized = normalizeModelPaths(files);
  const paths = new Set(normalized.map((file) => file.path));
  const missing = [...REQUIRED_FILES, onnxFileOf(isQuantized)].filter((path) => !paths.has(path));
  if (missing.length > 0)
    throw new Error(`This folder is not a complete model: ${missing.join(', ')} missing.`);
  const cache = await caches.open(TRANSFORMERS_CACHE_NAME);
  await Promise.all(
    normalized.map((file) =>
      cache.put(
        modelFileUrl(modelId, file.path),
        new Response(file.blob, { headers: { 'content-length': String(file.blob.size) } }),
      ),
    ),
  );
  return normalized.length;
}

/** True when the model's files are in the browser cache (downloaded before, or imported). */
export async function isModelCached(modelId: string, isQuantized: boolean): Promise<boolean> {
  if (typeof caches === 'undefined') return false;
  const cache = await caches.open(TRANSFORMERS_CACHE_NAME);
  const found = await Promise.all(
    [...REQUIRED_FILES, onnxFileOf(isQuantized)].map(
      async (path) => (await cache.match(modelFileUrl(modelId, path))) !== undefined,
    ),
  );
  return found.every(Boolean);
}
