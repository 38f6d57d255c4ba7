import { join } from 'node:path';
import type { Embedder } from '../../../../src/core/ports';
import type { EmbeddingSettings } from '../../../../src/workers/embedding/embedding-models';
import { createTransformersEmbedder } from '../../../../src/workers/embedding/transformers-embedder';

/** The generated test model (scripts/make-tiny-model.py), loaded through transformers.js. */
export const TINY_MODEL_SETTINGS: EmbeddingSettings = {
  modelId: 'carrel/tiny-embedder',
  isQuantized: false,
  source: { kind: 'hub' },
  canDownload: false,
};

export const TINY_MODEL_PATH = `${join(import.meta.dirname, '../../../fixtures/models')}/`;

let tinyEmbedder: Promise<Embedder> | undefined;

export function loadTinyEmbedder(): Promise<Embedder> {
  tinyEmbedder ??= createTransformersEmbedder(TINY_MODEL_SETTINGS, {
    localModelPath: TINY_MODEL_PATH,
  });
  return tinyEmbedder;
}
