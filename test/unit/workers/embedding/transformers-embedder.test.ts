import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHybridRetriever } from '../../../../src/core/rag';
import type { ModelLoadProgress } from '../../../../src/workers/embedding/embedding.api';
import { createTransformersEmbedder } from '../../../../src/workers/embedding/transformers-embedder';
import { loadCorpusChunks, loadKnownAnswers, measureRecall } from '../../core/rag/corpus';
import { startMockLlm } from '../../../mock-llm/server';
import { loadTinyEmbedder, TINY_MODEL_PATH, TINY_MODEL_SETTINGS } from './tiny-model';

const signal = new AbortController().signal;
const dot = (a: Float32Array, b: Float32Array) =>
  a.reduce((sum, value, i) => sum + value * (b[i] ?? 0), 0);

describe('createTransformersEmbedder with the tiny test model', () => {
  it('loads the model from the local folder with downloads switched off and reports progress', async () => {
    const progress: ModelLoadProgress[] = [];
    const embedder = await createTransformersEmbedder(
      TINY_MODEL_SETTINGS,
      { localModelPath: TINY_MODEL_PATH },
      (event) => progress.push(event),
    );
    expect(embedder.modelId).toBe('carrel/tiny-embedder');
    expect(
      progress.some((event) => event.file === 'onnx/model.onnx' && event.status === 'done'),
    ).toBe(true);
    expect(progress.at(-1)?.status).toBe('ready');
  });

  it('loads a self-hosted folder over HTTP, tokenizer included, with hub downloads switched off', async () => {
    const server = await startMockLlm();
    const fileCacheDir = await mkdtemp(join(tmpdir(), 'carrel-models-'));
    try {
      const embedder = await createTransformersEmbedder(
        {
          ...TINY_MODEL_SETTINGS,
          source: { kind: 'self_hosted', baseUrl: `${server.url}/models` },
          canDownload: false,
        },
        { fileCacheDir },
      );
      const [selfHosted] = await embedder.embed(['baking bread in the oven'], 'passage', signal);
      const [local] = await (await loadTinyEmbedder()).embed(['baking bread in the oven'], 'passage', signal);
      if (selfHosted === undefined || local === undefined) throw new Error('expected vectors');
      expect(dot(selfHosted, local)).toBeCloseTo(1, 5);
      expect(server.models.served()).toEqual(
        expect.arrayContaining(
          ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx'].map(
            (file) => `/models/carrel/tiny-embedder/${file}`,
          ),
        ),
      );
    } finally {
      await server.close();
      await rm(fileCacheDir, { recursive: true, force: true });
    }
  });

  it('fails clearly for a model that is neither local nor downloadable', async () => {
    await expect(
      createTransformersEmbedder(
        { ...TINY_MODEL_SETTINGS, modelId: 'carrel/missing' },
        { localModelPath: TINY_MODEL_PATH },
      ),
    ).rejects.toThrow();
  });

  it('returns one unit vector per text, closer for related texts', async () => {
    const embedder = await loadTinyEmbedder();
    const [bread, loaf, router] = await embedder.embed(
      ['baking bread in the oven', 'a loaf of bread', 'wireless router channels'],
      'passage',
      signal,
    );
    if (bread === undefined || loaf === undefined || router === undefined)
      throw new Error('expected three vectors');
    expect(bread).toHaveLength(48);
    expect(dot(bread, bread)).toBeCloseTo(1, 4);
    expect(dot(bread, loaf)).toBeGreaterThan(dot(bread, router));
  });

  it('does not lose recall@5 on the fixture corpus when vectors join BM25 (both recorded)', async () => {
    const embedder = await loadTinyEmbedder();
    const chunks = loadCorpusChunks();
    const vectors = await embedder.embed(
      chunks.map((chunk) => chunk.text),
      'passage',
      signal,
    );
    const embedded = chunks.map((chunk, i) => ({
      ...chunk,
      embedding: vectors[i] ?? null,
      embeddingModel: embedder.modelId,
    }));
    const answers = loadKnownAnswers();
    const queryVectors = await embedder.embed(
      answers.map((answer) => answer.query),
      'query',
      signal,
    );
    const vectorOf = new Map(
      answers.map((answer, i) => [answer.query, queryVectors[i] as Float32Array]),
    );
    const retriever = createHybridRetriever(embedded, embedder.modelId);
    const keyword = measureRecall(
      answers,
      (query) => retriever.retrieve([query], null, { topK: 5 }).hits,
    );
    const hybrid = measureRecall(
      answers,
      (query) =>
        retriever.retrieve([query], [vectorOf.get(query) as Float32Array], { topK: 5 }).hits,
    );
    console.log(
      `recall@5 on the fixture corpus: BM25 ${keyword.recall.toFixed(3)}, hybrid ${hybrid.recall.toFixed(3)} (hybrid missed: ${hybrid.missed.join(' | ') || 'none'})`,
    );
    expect(retriever.retrieve(['bread'], [vectorOf.get(answers[0]!.query)!]).mode).toBe('hybrid');
    expect(hybrid.recall).toBeGreaterThanOrEqual(keyword.recall);
  });
});
