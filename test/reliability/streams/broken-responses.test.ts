import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLlmClient } from '../../../src/llm';
import { buildRequest, collectEvents, streamChunks, summarizeEvents } from '../../unit/llm/replay';
import { pickRunCount, pickTimeoutMs } from '../soak';
import { buildCorpus, type CorpusCase } from '../support/corpus';
import { buildFrames, cutBytes, serializeFrames, WIRES } from '../support/provider-wire';
import { createRealClientAgent, readAnswerText } from '../support/real-client-agent';
import { buildWireProvider } from './wire-provider';

/** The corpus through the client, and faults all the way through the agent. */
const AGENT_RUNS = pickRunCount(25, 1_000);

function replyWith(body: Uint8Array, status: number, contentType: string, pieceBytes = 4096) {
  return () => {
    const pieces: Uint8Array[] = [];
    for (let i = 0; i < body.length; i += pieceBytes) pieces.push(body.slice(i, i + pieceBytes));
    return Promise.resolve(new Response(streamChunks(pieces), { status, headers: { 'content-type': contentType } }));
  };
}

beforeAll(() => {
  (globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
});

describe('the corpus of broken responses, through the LLM client', () => {
  it.each(buildCorpus().map((c) => [c.name, c] as const))('%s: no exception, one finish, the text before the fault kept', async (_name, corpusCase: CorpusCase) => {
    const client = createLlmClient({ fetch: replyWith(corpusCase.body, corpusCase.status, corpusCase.contentType), sleep: () => Promise.resolve() });
    const events = await collectEvents(client.stream(buildRequest(buildWireProvider(corpusCase.wire)), new AbortController().signal));
    const summary = summarizeEvents(events);
    expect(summary.finishCount).toBe(1);
    expect(events.at(-1)?.type).toBe('finish');
    expect(summary.text).toBe(corpusCase.keptText);
    if (corpusCase.isWellFormed) expect(summary).toMatchObject({ errors: [], finish: 'stop' });
    else expect(summary.finish === 'interrupted' || summary.errors.length > 0).toBe(true);
  });
});

describe('the corpus of broken responses, through the agent', () => {
  it.each(buildCorpus().map((c) => [c.name, c] as const))('%s: the question is saved, the partial answer kept, the fault shown', async (_name, corpusCase: CorpusCase) => {
    const agent = await createRealClientAgent({
      provider: buildWireProvider(corpusCase.wire),
      llmDeps: { fetch: replyWith(corpusCase.body, corpusCase.status, corpusCase.contentType) },
    });
    const turn = await agent.send('What went wrong?');
    expect(turn.result.ok ? 'ok' : turn.result.error).toBe('ok');
    expect(turn.chain[0]).toMatchObject({ role: 'user', text: 'What went wrong?' });
    expect(readAnswerText(turn.answer)).toBe(corpusCase.keptText);
    if (corpusCase.isWellFormed) {
      expect(turn.answer?.status).toBe('complete');
    } else {
      expect(turn.answer?.status).toMatch(/^(error|interrupted)$/);
      expect(turn.answer?.error?.message.length ?? 0).toBeGreaterThan(0);
      expect(turn.packets.some((p) => p.obj.type === 'error')).toBe(true);
    }
  }, 30_000);
});

describe('generated faulty streams, through the agent', () => {
  it(
    `keeps the question and the partial answer and shows the error, every time (${AGENT_RUNS} turns)`,
    async () => {
      let escaped = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...WIRES),
          fc.array(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 10 }), { minLength: 1, maxLength: 10 }),
          fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 }),
          fc.constantFrom('\n', '\r\n', '\r'),
          async (wire, deltas, cutFractions, lineEnd) => {
            const answer = { deltas, isFinished: false };
            const body = new TextEncoder().encode(
              serializeFrames(buildFrames(wire, answer), { lineEnds: [lineEnd], commentEvery: 2, isMultiLineData: false, unknownField: 'x_extra' }),
            );
            const pieces = cutBytes(body, cutFractions.map((f) => Math.floor(f * body.length)));
            const agent = await createRealClientAgent({
              provider: buildWireProvider(wire),
              llmDeps: { fetch: () => Promise.resolve(new Response(streamChunks(pieces), { headers: { 'content-type': 'text/event-stream' } })) },
            });
            const turn = await agent.send('Tell me everything').catch((error: unknown) => {
              escaped++;
              throw error;
            });
            agent.db.close();
            expect(turn.result.ok).toBe(true);
            expect(turn.chain[0]).toMatchObject({ role: 'user', text: 'Tell me everything' });
            expect(readAnswerText(turn.answer)).toBe(deltas.join(''));
            expect(turn.answer?.status).toBe('interrupted');
            expect(turn.packets.some((p) => p.obj.type === 'error')).toBe(true);
          },
        ),
        { numRuns: AGENT_RUNS },
      );
      expect(escaped).toBe(0);
    },
    pickTimeoutMs(60_000, 3_600_000),
  );
});
