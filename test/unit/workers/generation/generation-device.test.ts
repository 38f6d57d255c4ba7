import { afterEach, describe, expect, it, vi } from 'vitest';
import { chooseGenerationDevice, describeGenerationRuntime, findGpu } from '../../../../src/workers/generation/generation-device';
import { createLocalLlmClient } from '../../../../src/workers/generation/local-llm-client';
import { builtInProvider } from '../../../builders';

afterEach(() => vi.unstubAllGlobals());

const BUILT_IN = builtInProvider();

/** `navigator.gpu` as a browser has it: `requestAdapter` answers an adapter, null, or throws. */
function fakeGpu(adapter: () => Promise<unknown>) {
  return { requestAdapter: vi.fn(adapter) };
}

describe('choosing where the built-in model runs', () => {
  it('runs on WebGPU when the browser hands out an adapter', async () => {
    await expect(chooseGenerationDevice(fakeGpu(() => Promise.resolve({ features: new Set() })))).resolves.toBe('webgpu');
  });

  it('falls back to WebAssembly without navigator.gpu, without an adapter, or when asking for one fails', async () => {
    await expect(chooseGenerationDevice(undefined)).resolves.toBe('wasm');
    await expect(chooseGenerationDevice(fakeGpu(() => Promise.resolve(null)))).resolves.toBe('wasm');
    await expect(chooseGenerationDevice(fakeGpu(() => Promise.reject(new Error('GPU process crashed'))))).resolves.toBe('wasm');
  });

  it("reads this context's navigator.gpu, ignoring one that is not the WebGPU interface", async () => {
    vi.stubGlobal('navigator', { gpu: fakeGpu(() => Promise.resolve({})) });
    await expect(chooseGenerationDevice()).resolves.toBe('webgpu');
    vi.stubGlobal('navigator', { gpu: {} });
    expect(findGpu()).toBeUndefined();
    await expect(chooseGenerationDevice()).resolves.toBe('wasm');
  });

  it('says "WebGPU" or "WebAssembly, N threads" in Settings', () => {
    expect(describeGenerationRuntime('webgpu', 2)).toBe('WebGPU');
    expect(describeGenerationRuntime('wasm', 2)).toBe('WebAssembly, 2 threads');
    expect(describeGenerationRuntime('wasm', 1)).toBe('WebAssembly, 1 thread');
  });

  it('offers the WebGPU-only model only where WebGPU has an adapter', async () => {
    const client = createLocalLlmClient(() => null);
    vi.stubGlobal('navigator', { gpu: fakeGpu(() => Promise.resolve(null)) });
    const withoutGpu = (await client.listModels(BUILT_IN, new AbortController().signal)).map((model) => model.id);
    vi.stubGlobal('navigator', { gpu: fakeGpu(() => Promise.resolve({})) });
    const withGpu = (await client.listModels(BUILT_IN, new AbortController().signal)).map((model) => model.id);
    expect(withoutGpu).not.toContain('onnx-community/Qwen3-0.6B-ONNX');
    expect(withGpu).toContain('onnx-community/Qwen3-0.6B-ONNX');
    expect(withGpu).toEqual(expect.arrayContaining(withoutGpu));
  });
});
