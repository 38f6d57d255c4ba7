import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LlmEvent } from '../../../src/core/model';
import { createLlmClient } from '../../../src/llm';
import {
  buildRequest,
  collectEvents,
  streamChunks,
  summarizeEvents,
  type FixtureWire,
} from '../../unit/llm/replay';
import { pickRunCount, pickTimeoutMs } from '../soak';
import { buildWireProvider } from './wire-provider';
import { buildFrames, cutBytes, serializeFrames, WIRES, type Framing, type LineEnd, type NeutralAnswer } from '../support/provider-wire';

/** Generated streams per provider format through the real client. */
const GENERATED_RUNS = pickRunCount(200, 10_000);

const answerArbitrary: fc.Arbitrary<NeutralAnswer> = fc.record({
  deltas: fc.array(fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 12 }),
  isFinished: fc.boolean(),
});

const framingArbitrary: fc.Arbitrary<Framing> = fc.record({
  lineEnds: fc.array(fc.constantFrom<LineEnd>('\n', '\r', '\r\n'), { minLength: 1, maxLength: 4 }),
  commentEvery: fc.nat({ max: 3 }),
  isMultiLineData: fc.boolean(),
  unknownField: fc.option(fc.constantFrom('x_extra', 'obfuscation', 'provider', 'zz_unknown'), { nil: null }),
});

const caseArbitrary = fc.record({
  wire: fc.constantFrom(...WIRES),
  answer: answerArbitrary,
  framing: framingArbitrary,
  cutFractions: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 24 }),
});

async function streamBody(wire: FixtureWire, pieces: Uint8Array[]): Promise<LlmEvent[]> {
  const client = createLlmClient({
    fetch: () =>
      Promise.resolve(new Response(streamChunks(pieces), { status: 200, headers: { 'content-type': 'text/event-stream' } })),
    sleep: () => Promise.resolve(),
  });
  return collectEvents(client.stream(buildRequest(buildWireProvider(wire)), new AbortController().signal));
}

beforeAll(() => {
  (globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
});

describe('generated provider streams with hostile framing', () => {
  it(
    `never throws, ends with exactly one finish, and keeps every delivered token (${GENERATED_RUNS} streams)`,
    async () => {
      let escaped = 0;
      await fc.assert(
        fc.asyncProperty(caseArbitrary, async ({ wire, answer, framing, cutFractions }) => {
          const bytes = new TextEncoder().encode(serializeFrames(buildFrames(wire, answer), framing));
          const pieces = cutBytes(bytes, cutFractions.map((f) => Math.floor(f * bytes.length)));
          let events: LlmEvent[];
          try {
            events = await streamBody(wire, pieces);
          } catch (error) {
            escaped++;
            throw error;
          }
          const summary = summarizeEvents(events);
          expect(summary.finishCount).toBe(1);
          expect(events.at(-1)?.type).toBe('finish');
          expect(summary.text).toBe(answer.deltas.join(''));
          if (answer.isFinished) {
            expect(summary.errors).toEqual([]);
            expect(summary.finish).toBe('stop');
          } else {
            // A cut-off stream is never passed off as a finished answer.
            expect(summary.finish === 'interrupted' || summary.errors.length > 0).toBe(true);
          }
        }),
        { numRuns: GENERATED_RUNS },
      );
      expect(escaped).toBe(0);
    },
    pickTimeoutMs(60_000, 3_600_000),
  );
});
