import { join } from 'node:path';
import type { Remote } from 'comlink';
import { describe, expect, it } from 'vitest';
import type { LlmEvent } from '../../../../src/core/model';
import type { LlmRequest } from '../../../../src/core/ports';
import { createLlmClient } from '../../../../src/llm';
import type { GenerationWorkerApi } from '../../../../src/workers/generation/generation.api';
import { createGenerationHost } from '../../../../src/workers/generation/generation-host';
import { createLocalLlmClient } from '../../../../src/workers/generation/local-llm-client';
import { builtInProvider } from '../../../builders';

const MODELS = `${join(import.meta.dirname, '../../../fixtures/models')}/`;

const BUILT_IN = builtInProvider();

function request(maxOutputTokens: number): LlmRequest {
  return {
    provider: BUILT_IN,
    modelId: 'carrel/tiny-chat',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ],
    tools: [],
    maxOutputTokens,
  };
}

/** The LlmClient the agent worker builds, over the real generation host (no worker in Node). */
function createClient() {
  const host = createGenerationHost({ localModelPath: MODELS });
  const generation = { ...host, connect: () => undefined } as unknown as Remote<GenerationWorkerApi>;
  return createLlmClient({ local: createLocalLlmClient(() => generation) });
}

describe('the built-in model behind the LlmClient port', () => {
  it('answers the same with a temperature of 0 as without settings: greedy decoding either way', async () => {
    const read = async (controls: LlmRequest['controls']) => {
      let text = '';
      const withControls = { ...request(12), ...(controls ? { controls } : {}) };
      for await (const event of createClient().stream(withControls, new AbortController().signal))
        if (event.type === 'text-delta') text += event.text;
      return text;
    };
    expect(await read({ temperature: 0 })).toBe(await read(undefined));
  });

  it('streams text, reports usage and ends with one finish', async () => {
    const events: LlmEvent[] = [];
    for await (const event of createClient().stream(request(12), new AbortController().signal)) events.push(event);
    const text = events.flatMap((event) => (event.type === 'text-delta' ? [event.text] : [])).join('');
    expect(text).toMatch(/^Hello from the tiny built-in model\./);
    expect(events.find((event) => event.type === 'usage')).toMatchObject({ usage: { outputTokens: 12 } });
    expect(events.filter((event) => event.type === 'finish')).toEqual([{ type: 'finish', reason: 'length' }]);
    expect(events.at(-1)?.type).toBe('finish');
  });

  it('ends as interrupted, with no error, soon after the signal aborts, keeping the streamed text', async () => {
    const controller = new AbortController();
    const events: LlmEvent[] = [];
    let text = '';
    for await (const event of createClient().stream(request(500), controller.signal)) {
      events.push(event);
      if (event.type === 'text-delta') {
        text += event.text;
        if (text.length > 20) controller.abort();
      }
    }
    expect(events.some((event) => event.type === 'error')).toBe(false);
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'interrupted' });
    const usage = events.find((event) => event.type === 'usage');
    expect(usage?.type === 'usage' && usage.usage.outputTokens).toBeLessThan(20);
    expect(text).toMatch(/^Hello from/);
  });
});

describe('the built-in model when its worker could not set itself up', () => {
  const setupFailed = { ok: false, error: { code: 'worker_setup', message: 'Failed to fetch dynamically imported module' } };
  /** A generation worker that failed its set-up: every call answers so, and no text comes. */
  const broken = { generate: () => Promise.resolve(setupFailed) } as unknown as Remote<GenerationWorkerApi>;
  const working = () => {
    const host = createGenerationHost({ localModelPath: MODELS });
    return { ...host, connect: () => undefined } as unknown as Remote<GenerationWorkerApi>;
  };

  async function read(client: ReturnType<typeof createLlmClient>) {
    const events: LlmEvent[] = [];
    for await (const event of client.stream(request(12), new AbortController().signal)) events.push(event);
    const text = events.flatMap((event) => (event.type === 'text-delta' ? [event.text] : [])).join('');
    return { events, text };
  }

  it('answers from the fresh worker it is given in its place, asked for once', async () => {
    const failedOn: unknown[] = [];
    const fresh = working();
    const client = createLlmClient({
      local: createLocalLlmClient(
        () => broken,
        undefined,
        (failed) => {
          failedOn.push(failed);
          return Promise.resolve(fresh);
        },
      ),
    });
    const { events, text } = await read(client);
    expect(text).toMatch(/^Hello from the tiny built-in model\./);
    expect(events.some((event) => event.type === 'error')).toBe(false);
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'length' });
    expect(failedOn).toEqual([broken]);
  });

  it("says why when no fresh worker comes, or when there is no way to ask for one", async () => {
    for (const renew of [() => Promise.resolve(null), undefined]) {
      const { events, text } = await read(createLlmClient({ local: createLocalLlmClient(() => broken, undefined, renew) }));
      expect(text).toBe('');
      const error = events.find((event) => event.type === 'error');
      expect(error?.type === 'error' && error.error.message).toContain('Failed to fetch dynamically imported module');
      expect(events.at(-1)).toEqual({ type: 'finish', reason: 'error' });
    }
  });

  it('starts nothing again for a failure of another kind', async () => {
    let renewals = 0;
    const failing = {
      generate: () => Promise.resolve({ ok: false, error: { code: 'out_of_memory', message: 'Not enough memory.' } }),
    } as unknown as Remote<GenerationWorkerApi>;
    const client = createLlmClient({
      local: createLocalLlmClient(() => failing, undefined, () => {
        renewals++;
        return Promise.resolve(working());
      }),
    });
    const { events } = await read(client);
    expect(renewals).toBe(0);
    const error = events.find((event) => event.type === 'error');
    expect(error?.type === 'error' && error.error.message).toContain('Not enough memory.');
  });
});
