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

/** The files an embedding model needs: its configuration, tokenizer and the chosen ONNX file. */
export function listEmbeddingModelFiles(isQuantized: boolean): string[] {
  return [...REQUIRED_FILES, onnxFileOf(isQuantized)];
}

/**
 * Writes an imported model folder into the cache, under the hub URLs transformers.js reads
 * (embedding and built-in chat models alike); throws, writing nothing, when a `required` file is
 * missing. `isKept` picks the files to store (a folder may hold other ONNX variants, gigabytes
 * the model does not read). Returns the number of files stored and their bytes.
 */
export async function importModelFiles(
  modelId: string,
  files: readonly ModelFile[],
  required: readonly string[],
  isKept: (path: string) => boolean = () => true,
): Promise<{ fileCount: number; bytes: number }> {
  const normalized = normalizeModelPaths(files).filter((file) => isKept(file.path));
  const paths = new Set(normalized.map((file) => file.path));
  const missing = required.filter((path) => !paths.has(path));
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
  return {
    fileCount: normalized.length,
    bytes: normalized.reduce((sum, file) => sum + file.blob.size, 0),
  };
}

/** True when the model's files are in the browser cache (downloaded before, or imported). */
export async function isModelCached(modelId: string, isQuantized: boolean): Promise<boolean> {
  if (typeof caches === 'undefined') return false;
  const cache = await caches.open(TRANSFORMERS_CACHE_NAME);
  const found = await Promise.all(
    listEmbeddingModelFiles(isQuantized).map(
      async (path) => (await cache.match(modelFileUrl(modelId, path))) !== undefined,
    ),
  );
  return found.every(Boolean);
}
