import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildProvider } from '../../unit/llm/replay';
import { pickRunCount, pickTimeoutMs } from '../soak';
import { createRealClientAgent, readAnswerText } from '../support/real-client-agent';
import { createTokenStream, type TokenStream } from '../support/token-stream';

/** Stop at random tokens, and a stream that goes silent. */
const STOP_RUNS = pickRunCount(10, 100);
const TOKENS = Array.from({ length: 400 }, (_, i) => `t${i} `);
/** How long after the turn ended every request must be closed (the figure). */
const CLOSE_GRACE_MS = 1_000;

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function waitUntilClosed(streams: TokenStream[]): Promise<number> {
  const deadline = Date.now() + CLOSE_GRACE_MS;
  while (streams.some((s) => s.isOpen) && Date.now() < deadline) await wait(10);
  return streams.filter((s) => s.isOpen).length;
}

beforeAll(() => {
  (globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
});

describe('Stop at a random token', () => {
  it(
    `closes every request and saves the partial answer as stopped (${STOP_RUNS} runs)`,
    async () => {
      let openAfterStop = 0;
      let stopped = 0;
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 120 }), async (stopAtPacket) => {
          const streams: TokenStream[] = [];
          const agent = await createRealClientAgent({
            provider: buildProvider('openai'),
            llmDeps: {
              fetch: () => {
                const stream = createTokenStream({ tokens: TOKENS, after: 'silence' });
                streams.push(stream);
                return Promise.resolve(stream.response);
              },
            },
          });
          let seen = 0;
          const turn = await agent.send('Count to four hundred', {
            onPacket: (_packet, runId) => {
              if (++seen === stopAtPacket) void agent.api.stop(runId);
            },
          });
          agent.db.close();
          openAfterStop += await waitUntilClosed(streams);
          if (turn.answer?.status === 'stopped') stopped++;
          expect(turn.chain[0]).toMatchObject({ role: 'user', text: 'Count to four hundred' });
          expect(TOKENS.join('').startsWith(readAnswerText(turn.answer))).toBe(true);
        }),
        { numRuns: STOP_RUNS },
      );
      expect(openAfterStop).toBe(0);
      expect(stopped).toBe(STOP_RUNS);
    },
    pickTimeoutMs(60_000, 600_000),
  );
});

describe('a stream that goes silent', () => {
  it('is aborted after the stall timeout, keeps the partial answer and says why', async () => {
    const streams: TokenStream[] = [];
    const agent = await createRealClientAgent({
      provider: buildProvider('openai'),
      llmDeps: {
        stallTimeoutMs: 150,
        fetch: () => {
          const stream = createTokenStream({ tokens: ['Half ', 'an ', 'answer'], after: 'silence' });
          streams.push(stream);
          return Promise.resolve(stream.response);
        },
      },
    });
    const turn = await agent.send('Say something');
    expect(readAnswerText(turn.answer)).toBe('Half an answer');
    expect(turn.answer?.status).toBe('error');
    expect(turn.answer?.error?.message).toMatch(/sent nothing for/);
    expect(turn.packets.some((p) => p.obj.type === 'error' && p.obj.code === 'stream_error')).toBe(true);
    expect(await waitUntilClosed(streams)).toBe(0);
  });

  it('is aborted when no response arrives at all within the stall timeout', async () => {
    let signal: AbortSignal | undefined;
    const agent = await createRealClientAgent({
      provider: buildProvider('openai'),
      llmDeps: {
        stallTimeoutMs: 150,
        fetch: (_input, init) => {
          signal = init?.signal ?? undefined;
          return new Promise<Response>((_resolve, reject) => {
            init?.signal?.addEventListener('abort', () => reject(new DOMException('Aborted', 'AbortError')));
          });
        },
      },
    });
    const turn = await agent.send('Anyone there?');
    expect(turn.answer?.status).toBe('error');
    expect(turn.answer?.error?.message).toMatch(/sent nothing for/);
    expect(signal?.aborted).toBe(true);
  });

  it('stays alive while keep-alive comments arrive, however long the silence between tokens', async () => {
    const agent = await createRealClientAgent({
      provider: buildProvider('openai'),
      llmDeps: {
        stallTimeoutMs: 150,
        fetch: () =>
          Promise.resolve(
            createTokenStream({ tokens: ['Slow ', 'but ', 'alive'], after: 'silence', keepAliveEveryMs: 40, finishAfterSilenceMs: 500 }).response,
          ),
      },
    });
    const turn = await agent.send('Take your time');
    expect(turn.answer?.status).toBe('complete');
    expect(readAnswerText(turn.answer)).toBe('Slow but alive');
  });

  it('a user Stop during a silence is a stop, not a stall error', async () => {
    const agent = await createRealClientAgent({
      provider: buildProvider('openai'),
      llmDeps: {
        stallTimeoutMs: 5_000,
        fetch: () => Promise.resolve(createTokenStream({ tokens: ['Waiting'], after: 'silence' }).response),
      },
    });
    const turn = await agent.send('Hold on', {
      onPacket: (packet, runId) => {
        if (packet.obj.type === 'message_delta') setTimeout(() => void agent.api.stop(runId), 30);
      },
    });
    expect(turn.answer?.status).toBe('stopped');
    expect(turn.answer?.error).toBeUndefined();
  });
});
