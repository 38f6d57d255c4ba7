import type { ModelInfo } from '.';

/**
 * The models the built-in provider offers: small, instruction-tuned, permissively licensed, with
 * ONNX exports transformers.js loads. The CPU default ships 8-bit weights (ONNX Runtime's
 * WebAssembly build has fast 8-bit kernels, none for 4-bit); the larger one needs WebGPU and
 * ships 4-bit weights.
 */
export interface LocalModelInfo {
  id: string;
  label: string;
  parameters: string;
  /** Bytes of every file the model needs, for the download offer. */
  sizeBytes: number;
  licence: string;
  /** transformers.js dtype: which ONNX file is loaded (`q8` → onnx/model_quantized.onnx). */
  dtype: 'q8' | 'q4f16';
  /** The window Carrel uses by default, sized so the first token comes within a few seconds. */
  contextWindow: number;
  /** What the model was trained for; the user may raise the window up to it. */
  maxContextWindow: number;
  maxOutputTokens: number;
  /** Whether its chat template declares tools and it answers with `<tool_call>` blocks. */
  hasTools: boolean;
  isWebGpuOnly: boolean;
}

const MB = 1_000_000;

/**
 * A prompt on the CPU is read at roughly 100 tokens/s in Chromium, so 1,024 tokens keep the first
 * token of a fresh chat within seconds; follow-ups reuse the key/value cache.
 */
export const LOCAL_CONTEXT_WINDOW = 1_024;
/** Room kept for the answer inside that window. */
export const LOCAL_MAX_OUTPUT_TOKENS = 384;

export const DEFAULT_LOCAL_MODEL_ID = 'HuggingFaceTB/SmolLM2-360M-Instruct';

/*
 * The figures below, checked against the models' cards, configs and hub file listings (read
 * through a documentation index; no hub access from where this was written):
 * - SmolLM2-360M-Instruct: Apache-2.0, 8,192 positions (config.json: 32 layers, hidden 960), no
 *   tool template. Size NOT verified: the hub's onnx/ folder as indexed lists model.onnx (1.64 GB),
 *   model_fp16 (819 MB), model_q4 (417 MB) and model_q4f16 (299 MB) after an "improved ONNX
 *   weights" upload, and no model_quantized.onnx; 410 MB is the 8-bit file of this shape (a
 *   quarter of the float file; the bench's generated copy is 409.7 MB).
 * - Qwen2.5-0.5B-Instruct: Apache-2.0, 0.49 B parameters, 32,768-token context, tools in its
 *   template; onnx-community's model_quantized.onnx is 512 MB, tokenizer.json about 7 MB (as in
 *   other Qwen2.5 ONNX copies).
 * - Qwen3-0.6B: Apache-2.0, 0.6 B parameters, 32,768-token context, tools. The size of
 *   onnx-community's model_q4f16.onnx is NOT verified (not in the index); 570 MB is an estimate.
 */

export const LOCAL_MODELS: readonly LocalModelInfo[] = [
  {
    id: DEFAULT_LOCAL_MODEL_ID,
    label: 'SmolLM2 360M Instruct',
    parameters: '360 M',
    sizeBytes: 410 * MB,
    licence: 'Apache-2.0',
    dtype: 'q8',
    contextWindow: LOCAL_CONTEXT_WINDOW,
    maxContextWindow: 8_192,
    maxOutputTokens: LOCAL_MAX_OUTPUT_TOKENS,
    hasTools: false,
    isWebGpuOnly: false,
  },
  {
    id: 'onnx-community/Qwen2.5-0.5B-Instruct',
    label: 'Qwen2.5 0.5B Instruct',
    parameters: '494 M',
    sizeBytes: 519 * MB,
    licence: 'Apache-2.0',
    dtype: 'q8',
    contextWindow: LOCAL_CONTEXT_WINDOW,
    maxContextWindow: 32_768,
    maxOutputTokens: LOCAL_MAX_OUTPUT_TOKENS,
    hasTools: true,
    isWebGpuOnly: false,
  },
  {
    id: 'onnx-community/Qwen3-0.6B-ONNX',
    label: 'Qwen3 0.6B (WebGPU)',
    parameters: '0.6 B',
    sizeBytes: 570 * MB,
    licence: 'Apache-2.0',
    dtype: 'q4f16',
    contextWindow: 4_096,
    maxContextWindow: 32_768,
    maxOutputTokens: 1_024,
    hasTools: true,
    isWebGpuOnly: true,
  },
];

/** The curated entry, or what Carrel assumes about a model a self-hosted folder provides. */
export function describeLocalModel(modelId: string): LocalModelInfo {
  return (
    LOCAL_MODELS.find((model) => model.id === modelId) ?? {
      id: modelId,
      label: modelId,
      parameters: '?',
      sizeBytes: 0,
      licence: 'see the model card',
      dtype: 'q8',
      contextWindow: LOCAL_CONTEXT_WINDOW,
      maxContextWindow: LOCAL_CONTEXT_WINDOW,
      maxOutputTokens: LOCAL_MAX_OUTPUT_TOKENS,
      hasTools: false,
      isWebGpuOnly: false,
    }
  );
}

/** The models this device can run: the WebGPU-only ones only where WebGPU exists. */
export function listLocalModels(hasWebGpu: boolean): LocalModelInfo[] {
  return LOCAL_MODELS.filter((model) => hasWebGpu || !model.isWebGpuOnly);
}

export function toLocalModelInfo(model: LocalModelInfo): ModelInfo {
  return {
    id: model.id,
    contextWindow: model.contextWindow,
    maxOutputTokens: model.maxOutputTokens,
    hasVision: false,
    hasTools: model.hasTools,
    hasReasoning: false,
    encoding: 'default',
    runsInBrowser: true,
    isEstimate: !LOCAL_MODELS.includes(model),
  };
}

/** "410 MB", "1.4 GB", "162 kB". */
export function formatModelSize(bytes: number): string {
  if (bytes >= 1_000 * MB) return `${(bytes / (1_000 * MB)).toFixed(1)} GB`;
  if (bytes < MB) return `${Math.round(bytes / 1_000)} kB`;
  return `${Math.round(bytes / MB)} MB`;
}
