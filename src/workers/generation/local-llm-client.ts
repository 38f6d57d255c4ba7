import { proxy, type Remote } from 'comlink';
import type { LlmError, LlmEvent, ModelInfo } from '../../core/model';
import type { LlmClient, LlmRequest } from '../../core/ports';
import { toChatTemplateMessages, toChatTemplateTools } from '../../llm/local-chat-messages';
import { listLocalModels, toLocalModelInfo } from '../../core/model/local-models';
import { chooseGenerationDevice } from './generation-device';
import { createToolCallExtractor } from '../../llm/tool-call-parser';
import type { GenerationWorkerApi, LocalGenerationResult, WorkerResult } from './generation.api';
import { isSetupFailure } from '../protocol';

/**
 * The LlmClient port for the built-in model (`kind: 'local'`): the agent loop streams from it
 * exactly as from a provider. The request goes to the generation worker; its text comes back
 * piece by piece and is turned into events, tool calls included. Stop sets a flag in shared
 * memory that the worker reads between two tokens.
 */
export function createLocalLlmClient(
  getGeneration: () => Remote<GenerationWorkerApi> | null,
  newId: () => string = () => crypto.randomUUID(),
  /**
   * A generation worker in place of one that could not set itself up (GenerationLink.renew);
   * without it, that failure ends the answer.
   */
  renewGeneration?: (
    failed: Remote<GenerationWorkerApi>,
    signal: AbortSignal,
  ) => Promise<Remote<GenerationWorkerApi> | null>,
): LlmClient {
  return {
    stream: (request, signal) => streamLocal(getGeneration(), request, signal, newId, renewGeneration),
    // The WebGPU-only models are offered only where WebGPU has an adapter.
    listModels: async (): Promise<ModelInfo[]> =>
      listLocalModels((await chooseGenerationDevice()) === 'webgpu').map(toLocalModelInfo),
  };
}

function toLlmError(error: { code: string; message: string }): LlmError {
  return { code: error.code === 'out_of_memory' ? 'server_error' : 'unknown', message: error.message };
}

/** Events as the worker produces them, pulled by the async generator below. */
function createQueue<T>() {
  const items: T[] = [];
  let wake: (() => void) | null = null;
  return {
    push(item: T) {
      items.push(item);
      wake?.();
      wake = null;
    },
    async *drain(until: Promise<unknown>): AsyncGenerator<T> {
      let isDone = false;
      void until.finally(() => {
        isDone = true;
        wake?.();
        wake = null;
      });
      for (;;) {
        while (items.length > 0) yield items.shift() as T;
        if (isDone) return;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}

async function* streamLocal(
  firstGeneration: Remote<GenerationWorkerApi> | null,
  request: LlmRequest,
  signal: AbortSignal,
  newId: () => string,
  renewGeneration?: (
    failed: Remote<GenerationWorkerApi>,
    signal: AbortSignal,
  ) => Promise<Remote<GenerationWorkerApi> | null>,
): AsyncGenerator<LlmEvent> {
  let generation = firstGeneration;
  if (generation === null) {
    yield { type: 'error', error: { code: 'unknown', message: 'The built-in model is not available: its worker was not started.' } };
    yield { type: 'finish', reason: 'error' };
    return;
  }
  const stopFlag = new Int32Array(new SharedArrayBuffer(4));
  const onAbort = () => Atomics.store(stopFlag, 0, 1);
  if (signal.aborted) onAbort();
  signal.addEventListener('abort', onAbort, { once: true });
  const extractor = createToolCallExtractor(newId);
  const queue = createQueue<string>();
  const onText = proxy((text: string) => queue.push(text));
  const generate = (on: Remote<GenerationWorkerApi>): Promise<WorkerResult<LocalGenerationResult>> =>
    on.generate(
      {
        model: { modelId: request.modelId, sourceUrl: request.provider.baseUrl },
        messages: toChatTemplateMessages(request.messages),
        tools: toChatTemplateTools(request.tools),
        maxNewTokens: request.maxOutputTokens ?? 256,
        ...(request.controls?.temperature !== undefined ? { temperature: request.controls.temperature } : {}),
        ...(request.controls?.topP !== undefined ? { topP: request.controls.topP } : {}),
      },
      stopFlag,
      onText,
    );
  let running = generate(generation);
  try {
    for (let attempt = 0; ; attempt++) {
      let hasText = false;
      for await (const text of queue.drain(running.catch(() => undefined))) {
        hasText = true;
        yield* extractor.accept(text);
      }
      // A worker that could not set itself up ran nothing: the answer starts again, once, on
      // a fresh one.
      if (attempt > 0 || hasText || renewGeneration === undefined || signal.aborted) break;
      const outcome = await running.then(
        (result) => result,
        (error: unknown) => error,
      );
      if (!isSetupFailure(outcome)) break;
      const fresh = await renewGeneration(generation, signal);
      if (fresh === null) break;
      generation = fresh;
      running = generate(fresh);
    }
    yield* extractor.finish();
    const result = await running;
    if (!result.ok) {
      yield { type: 'error', error: toLlmError(result.error) };
      yield { type: 'finish', reason: 'error' };
      return;
    }
    const value = result.value;
    yield {
      type: 'usage',
      usage: { inputTokens: value.promptTokens, outputTokens: value.outputTokens, cachedInputTokens: value.reusedPromptTokens },
    };
    if (signal.aborted || value.finishReason === 'stopped') yield { type: 'finish', reason: 'interrupted' };
    else if (extractor.toolCallCount > 0) yield { type: 'finish', reason: 'tool-calls' };
    else yield { type: 'finish', reason: value.finishReason };
  } catch (error) {
    yield { type: 'error', error: { code: 'unknown', message: error instanceof Error ? error.message : String(error) } };
    yield { type: 'finish', reason: 'error' };
  } finally {
    signal.removeEventListener('abort', onAbort);
    // The consumer stopped reading early: the worker stops too.
    Atomics.store(stopFlag, 0, 1);
  }
}
