import type { LlmEvent, ModelInfo, ProviderConfig } from '../../src/core/model';
import type { LlmClient, LlmRequest } from '../../src/core/ports';

/** One scripted inference: events in order, with optional pauses and a hang until aborted. */
export type ScriptItem = LlmEvent | { type: 'pause'; ms: number } | { type: 'hang' } | { type: 'throw'; message: string };

export type Script = ScriptItem[];

/** Builders for common scripts. */
export const scripts = {
  text(text: string, pieces = 3): Script {
    const size = Math.max(1, Math.ceil(text.length / pieces));
    const deltas: Script = [];
    for (let i = 0; i < text.length; i += size) deltas.push({ type: 'text-delta', text: text.slice(i, i + size) });
    return [...deltas, { type: 'usage', usage: { inputTokens: 10, outputTokens: 5 } }, { type: 'finish', reason: 'stop' }];
  },
  toolCalls(calls: Array<{ id: string; name: string; args: unknown }>): Script {
    const items: Script = [];
    for (const call of calls) {
      const argumentsText = typeof call.args === 'string' ? call.args : JSON.stringify(call.args);
      items.push({ type: 'tool-call-start', id: call.id, name: call.name });
      items.push({ type: 'tool-call-delta', id: call.id, argumentsDelta: argumentsText });
      items.push({ type: 'tool-call-end', id: call.id, name: call.name, argumentsText });
    }
    return [...items, { type: 'finish', reason: 'tool-calls' }];
  },
  reasoningThenText(reasoning: string, text: string): Script {
    return [
      { type: 'reasoning-delta', text: reasoning },
      { type: 'reasoning-end', providerState: { signature: 'sig-1' } },
      ...scripts.text(text, 1),
    ];
  },
  hangAfter(text: string): Script {
    return [{ type: 'text-delta', text }, { type: 'hang' }];
  },
  errorAfter(text: string, code: 'overloaded' | 'rate_limited' = 'overloaded'): Script {
    return [
      { type: 'text-delta', text },
      { type: 'error', error: { code, message: `The provider is ${code}.` } },
      { type: 'finish', reason: 'error' },
    ];
  },
};

/**
 * An LlmClient that plays scripts, one per request in order (per model id when given), and
 * records every request. Honours the abort signal like a real fetch: a hang ends when aborted,
 * and an aborted stream finishes `interrupted` without an error event.
 */
export class ScriptedLlmClient implements LlmClient {
  readonly requests: LlmRequest[] = [];
  private readonly queues = new Map<string, Script[]>();
  openStreams = 0;

  /** Queues scripts for any model (`*`) or a specific model id. */
  enqueue(scripts: Script[], modelId = '*'): this {
    const queue = this.queues.get(modelId) ?? [];
    queue.push(...scripts);
    this.queues.set(modelId, queue);
    return this;
  }

  private next(modelId: string): Script {
    const own = this.queues.get(modelId);
    if (own && own.length > 0) return own.shift() as Script;
    const any = this.queues.get('*');
    if (any && any.length > 0) return any.shift() as Script;
    throw new Error(`No script left for model ${modelId}`);
  }

  async *stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmEvent> {
    this.requests.push(structuredClone(request));
    const script = this.next(request.modelId);
    this.openStreams++;
    try {
      for (const item of script) {
        if (signal.aborted) break;
        if (item.type === 'pause') await sleep(item.ms, signal);
        else if (item.type === 'hang') await sleep(60_000, signal);
        else if (item.type === 'throw') throw new Error(item.message);
        else {
          yield item;
          await Promise.resolve();
        }
      }
      if (signal.aborted) yield { type: 'finish', reason: 'interrupted' };
    } finally {
      this.openStreams--;
    }
  }

  listModels(_provider: ProviderConfig): Promise<ModelInfo[]> {
    return Promise.resolve([]);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
