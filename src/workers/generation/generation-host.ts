import {
  AutoModelForCausalLM,
  AutoTokenizer,
  DynamicCache,
  env,
  StoppingCriteria,
  Tensor,
  TextStreamer,
  type PreTrainedModel,
  type PreTrainedTokenizer,
} from '@huggingface/transformers';
import { describeLocalModel } from '../../core/model/local-models';
import { chooseWasmThreadCount, type OrtWasmPaths } from '../embedding/transformers-embedder';
import { describeGenerationRuntime, type GenerationDevice } from './generation-device';
import type {
  GenerationStatus,
  GenerationWorkerApi,
  LocalGenerationRequest,
  LocalGenerationResult,
  LocalModelRef,
  WorkerResult,
} from './generation.api';
import { deleteModelFiles, downloadModel, findPartialDownload, importModelFolder, isModelDownloaded, remoteLayoutOf } from './model-download';

/** Never fetched: the files are checked to be in the cache first (see the embedder's twin). */
const OFFLINE_LOCAL_PATH = '/__carrel-offline-models__/';

export interface GenerationHostDeps {
  /** The app's own ONNX Runtime files (browser); Node tests use onnxruntime-node. */
  wasmPaths?: OrtWasmPaths;
  /**
   * Browser: 'webgpu' once the worker installed ONNX Runtime's WebGPU build (ort-webgpu-runtime.ts),
   * else 'wasm' (the default).
   */
  device?: GenerationDevice;
  /** Node tests: a folder of models laid out like the hub, read instead of the cache. */
  localModelPath?: string;
  /** ONNX Runtime's thread count, pinned (the bench compares runtimes at equal counts). */
  threads?: number;
  now?: () => number;
}

/** Stops generate() between two tokens once the caller set the shared flag. */
class SharedFlagStoppingCriteria extends StoppingCriteria {
  constructor(private readonly flag: Int32Array) {
    super();
  }
  override _call(inputIds: number[][]): boolean[] {
    const isStopped = Atomics.load(this.flag, 0) !== 0;
    return inputIds.map(() => isStopped);
  }
}

interface Loaded {
  key: string;
  tokenizer: PreTrainedTokenizer;
  model: PreTrainedModel;
  runtime: string;
}

/** The previous turn's keys and values, and the tokens they cover. */
interface KvCache {
  modelKey: string;
  tokens: number[];
  cache: DynamicCache;
}

const keyOf = (model: LocalModelRef) => `${model.sourceUrl}|${model.modelId}`;

function commonPrefixLength(a: readonly number[], b: readonly number[]): number {
  const limit = Math.min(a.length, b.length);
  let index = 0;
  while (index < limit && a[index] === b[index]) index += 1;
  return index;
}

/** Keeps the first `length` positions of every key/value tensor ([batch, heads, length, size]). */
function cropCache(cache: DynamicCache, length: number): DynamicCache {
  const entries: Record<string, Tensor> = {};
  for (const [name, tensor] of Object.entries(cache as unknown as Record<string, Tensor>)) {
    entries[name] = tensor.slice(null, null, [0, length], null);
  }
  return new DynamicCache(entries);
}

function isOutOfMemory(error: unknown): boolean {
  const text = error instanceof Error ? `${error.name} ${error.message}` : String(error);
  return /bad_alloc|out of memory|Array buffer allocation failed|Aborted\(OOM\)|RangeError: .*memory/i.test(text);
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Builds the generation worker's API; generation.worker.ts only exposes it. */
export function createGenerationHost(deps: GenerationHostDeps = {}): Omit<GenerationWorkerApi, 'connect'> {
  const now = deps.now ?? (() => performance.now());
  const jobs = new Map<string, AbortController>();
  let loaded: Promise<Loaded> | null = null;
  let loadedKey: string | null = null;
  let runtime: string | null = null;
  let kv: KvCache | null = null;
  let last: LocalGenerationResult | null = null;

  async function load(model: LocalModelRef): Promise<Loaded> {
    const key = keyOf(model);
    if (loaded !== null && loadedKey === key) return loaded;
    kv = null;
    loadedKey = key;
    loaded = (async () => {
      const { host, template } = remoteLayoutOf(model.sourceUrl);
      env.remoteHost = host;
      env.remotePathTemplate = template;
      env.allowRemoteModels = false;
      env.allowLocalModels = true;
      env.localModelPath = deps.localModelPath ?? OFFLINE_LOCAL_PATH;
      env.useBrowserCache = typeof caches !== 'undefined';
      // The default loads ONNX Runtime's loader from a blob: URL, which script-src 'self' forbids.
      env.useWasmCache = false;
      if (deps.localModelPath === undefined && !(await isModelDownloaded(model))) {
        throw Object.assign(new Error('The built-in model is not downloaded yet.'), { code: 'not_downloaded' });
      }
      const wasm = env.backends.onnx.wasm;
      const threads =
        deps.threads ??
        chooseWasmThreadCount({
          isCrossOriginIsolated: globalThis.crossOriginIsolated === true,
          hardwareConcurrency: globalThis.navigator?.hardwareConcurrency ?? 1,
        });
      if (deps.wasmPaths !== undefined && wasm !== undefined) {
        wasm.wasmPaths = { ...deps.wasmPaths };
        wasm.numThreads = threads;
      }
      const dtype = describeLocalModel(model.modelId).dtype;
      const isBrowser = deps.wasmPaths !== undefined;
      const device = deps.device ?? 'wasm';
      const [tokenizer, causalModel] = await Promise.all([
        AutoTokenizer.from_pretrained(model.modelId),
        AutoModelForCausalLM.from_pretrained(model.modelId, {
          dtype,
          ...(isBrowser
            ? device === 'webgpu'
              ? // transformers.js lists no devices for an ONNX Runtime given to it: 'auto' with the
                // provider named leaves the choice to ONNX Runtime's WebGPU build.
                { device: 'auto' as const, session_options: { executionProviders: ['webgpu'] } }
              : { device: 'wasm' as const }
            : deps.threads !== undefined
              ? { session_options: { intraOpNumThreads: deps.threads, interOpNumThreads: 1 } }
              : {}),
        }),
      ]);
      runtime = isBrowser ? describeGenerationRuntime(device, env.backends.onnx.wasm?.numThreads ?? 1) : 'onnxruntime-node (CPU)';
      return { key, tokenizer, model: causalModel, runtime };
    })();
    loaded.catch(() => {
      loaded = null;
      loadedKey = null;
    });
    return loaded;
  }

  async function generate(
    request: LocalGenerationRequest,
    stopFlag: Int32Array,
    onText: (text: string) => void,
  ): Promise<WorkerResult<LocalGenerationResult>> {
    let session: Loaded;
    try {
      session = await load(request.model);
    } catch (error) {
      const code = (error as { code?: unknown }).code === 'not_downloaded' ? 'not_downloaded' : isOutOfMemory(error) ? 'out_of_memory' : 'generation_failed';
      return { ok: false, error: { code, message: describe(error) } };
    }
    const started = now();
    const prompt = String(
      session.tokenizer.apply_chat_template(request.messages, {
        tools: request.tools.length > 0 ? request.tools : null,
        add_generation_prompt: true,
        tokenize: false,
      }),
    );
    const encoded = session.tokenizer(prompt, { add_special_tokens: false, return_tensor: false }) as { input_ids: number[] };
    const promptTokens = encoded.input_ids;
    // Reuse the previous turn's keys and values for the part of the prompt that did not change;
    // at least the last prompt token is always computed again, so there are logits to sample.
    let reused = 0;
    let pastKeyValues: DynamicCache | undefined;
    if (kv !== null && kv.modelKey === session.key) {
      reused = Math.min(commonPrefixLength(kv.tokens, promptTokens), promptTokens.length - 1);
      if (reused > 0) pastKeyValues = reused === kv.tokens.length ? kv.cache : cropCache(kv.cache, reused);
    }
    kv = null;
    let firstTokenAt: number | null = null;
    let outputTokens = 0;
    const streamer = new TextStreamer(session.tokenizer, {
      skip_prompt: true,
      skip_special_tokens: true,
      callback_function: (text: string) => {
        if (text !== '') onText(text);
      },
      token_callback_function: () => {
        outputTokens += 1;
        firstTokenAt ??= now();
      },
    });
    const eos = new Set<number>(
      [session.model.generation_config?.eos_token_id ?? []].flat().filter((id): id is number => typeof id === 'number'),
    );
    try {
      if (Atomics.load(stopFlag, 0) !== 0) throw new StoppedBeforeStart();
      const inputIds = new Tensor('int64', BigInt64Array.from(promptTokens.map(BigInt)), [1, promptTokens.length]);
      const attentionMask = new Tensor('int64', new BigInt64Array(promptTokens.length).fill(1n), [1, promptTokens.length]);
      const output = (await session.model.generate({
        input_ids: inputIds,
        attention_mask: attentionMask,
        max_new_tokens: request.maxNewTokens,
        ...selectSampling(request),
        streamer,
        stopping_criteria: [new SharedFlagStoppingCriteria(stopFlag)],
        return_dict_in_generate: true,
        ...(pastKeyValues !== undefined ? { past_key_values: pastKeyValues } : {}),
      })) as { sequences: Tensor; past_key_values: DynamicCache };
      const sequence = (output.sequences.tolist() as bigint[][])[0]?.map(Number) ?? [];
      const cachedLength = output.past_key_values.get_seq_length();
      kv = { modelKey: session.key, tokens: sequence.slice(0, cachedLength), cache: output.past_key_values };
      const lastToken = sequence.at(-1);
      const isStopped = Atomics.load(stopFlag, 0) !== 0;
      const finishReason = isStopped ? 'stopped' : lastToken !== undefined && eos.has(lastToken) ? 'stop' : 'length';
      const ended = now();
      const decodeMs = firstTokenAt === null ? 0 : ended - firstTokenAt;
      last = {
        finishReason,
        promptTokens: promptTokens.length,
        reusedPromptTokens: reused,
        outputTokens,
        timeToFirstTokenMs: (firstTokenAt ?? ended) - started,
        tokensPerSecond: outputTokens > 1 && decodeMs > 0 ? ((outputTokens - 1) * 1000) / decodeMs : null,
      };
      return { ok: true, value: last };
    } catch (error) {
      if (error instanceof StoppedBeforeStart) {
        return { ok: true, value: { finishReason: 'stopped', promptTokens: promptTokens.length, reusedPromptTokens: 0, outputTokens: 0, timeToFirstTokenMs: 0, tokensPerSecond: null } };
      }
      if (isOutOfMemory(error)) {
        // The runtime may be unusable after an allocation failure: load afresh next time.
        loaded = null;
        loadedKey = null;
        return {
          ok: false,
          error: { code: 'out_of_memory', message: 'This device ran out of memory running the built-in model. Lower its context window in Settings, close other tabs, or use a provider.' },
        };
      }
      return { ok: false, error: { code: 'generation_failed', message: describe(error) } };
    }
  }

  return {
    async download(jobId, model, onProgress) {
      const controller = new AbortController();
      jobs.set(jobId, controller);
      try {
        return { ok: true, value: { bytes: await downloadModel(model, controller.signal, onProgress, now) } };
      } catch (error) {
        if (controller.signal.aborted) return { ok: false, error: { code: 'cancelled', message: 'The download was cancelled; what arrived is kept.' } };
        return { ok: false, error: { code: 'download_failed', message: `The model could not be downloaded: ${describe(error)}` } };
      } finally {
        jobs.delete(jobId);
      }
    },
    cancel(jobId) {
      jobs.get(jobId)?.abort();
      return Promise.resolve();
    },
    async importModel(modelId, files) {
      try {
        const bytes = await importModelFolder(modelId, files);
        // A model loaded from the files this import replaced is read again.
        if (loadedKey?.endsWith(`|${modelId}`) === true) {
          loaded = null;
          loadedKey = null;
          kv = null;
        }
        return { ok: true, value: { bytes } };
      } catch (error) {
        return { ok: false, error: { code: 'import_failed', message: describe(error) } };
      }
    },
    isDownloaded: (model) => isModelDownloaded(model),
    findPartialDownload: () => findPartialDownload(),
    async deleteModel(model) {
      if (loadedKey === keyOf(model)) {
        loaded = null;
        loadedKey = null;
        kv = null;
        runtime = null;
      }
      await deleteModelFiles(model);
    },
    generate,
    status(): Promise<GenerationStatus> {
      return Promise.resolve({ runtime, loadedModelId: loadedKey?.split('|')[1] ?? null, last });
    },
  };
}

class StoppedBeforeStart extends Error {}

/**
 * transformers.js generation options for the request's sampling: greedy decoding unless a
 * temperature above 0 or a top-p below 1 asks for sampling (temperature 0 means greedy, as
 * with the providers).
 */
export function selectSampling(
  request: Pick<LocalGenerationRequest, 'temperature' | 'topP'>,
): { do_sample: boolean; temperature?: number; top_p?: number } {
  const { temperature, topP } = request;
  const isSampling =
    (temperature !== undefined && temperature > 0) || (topP !== undefined && topP < 1);
  if (!isSampling || temperature === 0) return { do_sample: false };
  return {
    do_sample: true,
    ...(temperature !== undefined ? { temperature } : {}),
    ...(topP !== undefined ? { top_p: topP } : {}),
  };
}
