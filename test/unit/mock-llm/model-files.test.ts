import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMockLlm } from '../../mock-llm/server';
import type { MockLlm } from '../../mock-llm/server';

const TINY_CONFIG = 'test/fixtures/models/carrel/tiny-embedder/config.json';

describe('mock server model files under /models/', () => {
  let server: MockLlm;
  beforeAll(async () => {
    server = await startMockLlm();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => server.reset());

  it('serves a fixture model file with CORS headers, byte for byte', async () => {
    const response = await fetch(`${server.url}/models/carrel/tiny-embedder/config.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.text()).toBe(await readFile(TINY_CONFIG, 'utf8'));
    expect(server.models.served()).toEqual(['/models/carrel/tiny-embedder/config.json']);
  });

  it('answers 404 for a missing file and for a path that climbs out of the fixtures', async () => {
    const missing = await fetch(
      `${server.url}/models/carrel/tiny-embedder/onnx/model_quantized.onnx`,
    );
    const climbing = await fetch(`${server.url}/models/..%2F..%2F..%2Fpackage.json`);
    expect([missing.status, climbing.status]).toEqual([404, 404]);
    expect(server.models.served()).toEqual([]);
  });

  it('holds responses until released', async () => {
    const release = server.models.hold();
    let isAnswered = false;
    const pending = fetch(`${server.url}/models/carrel/tiny-embedder/config.json`).then(
      (response) => {
        isAnswered = true;
        return response.status;
      },
    );
    // Long enough for a served file to arrive on any machine; nothing must arrive.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(isAnswered).toBe(false);
    release();
    expect(await pending).toBe(200);
  });

  it('holds only the files whose path ends as asked', async () => {
    const release = server.models.hold('onnx/model.onnx');
    let isWeightsAnswered = false;
    const weights = fetch(`${server.url}/models/carrel/tiny-embedder/onnx/model.onnx`).then(
      (response) => {
        isWeightsAnswered = true;
        return response.status;
      },
    );
    const config = await fetch(`${server.url}/models/carrel/tiny-embedder/config.json`);
    expect(config.status).toBe(200);
    expect(isWeightsAnswered).toBe(false);
    release();
    expect(await weights).toBe(200);
    expect(server.models.served()).toEqual([
      '/models/carrel/tiny-embedder/config.json',
      '/models/carrel/tiny-embedder/onnx/model.onnx',
    ]);
  });

  it('answers a range probe at once, even while holding, with the size in content-range', async () => {
    const release = server.models.hold();
    const path = `${server.url}/models/carrel/tiny-embedder/config.json`;
    const whole = (await readFile(TINY_CONFIG)).byteLength;
    const probe = await fetch(path, { headers: { range: 'bytes=0-0' } });
    expect(probe.status).toBe(206);
    expect(probe.headers.get('content-range')).toBe(`bytes 0-0/${whole}`);
    expect((await probe.arrayBuffer()).byteLength).toBe(1);
    const beyond = await fetch(path, { headers: { range: `bytes=${whole}-` } });
    expect(beyond.status).toBe(416);
    expect(server.models.served()).toEqual([]);
    release();
  });

  it('leaves the LLM routes, /v1/models included, to the mock LLM', async () => {
    const response = await fetch(`${server.url}/v1/models`, {
      headers: { authorization: 'Bearer sk-test' },
    });
    expect(response.status).toBe(200);
    expect(server.models.served()).toEqual([]);
  });
});
