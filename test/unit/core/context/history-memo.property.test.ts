import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { assembleContext, type ContextInput } from '../../../../src/core/context';
import { removeDisplayArtifacts } from '../../../../src/core/context/remove-from-text';
import type { ChatMessageSimple, ProviderKind } from '../../../../src/core/model';
import type { TokenCounter } from '../../../../src/core/ports';
import { createTokenCounter } from '../../../../src/core/tokens';
import { buildSessionInput, sessionArbitrary, strategyArbitrary } from './random-session';

/**
 * History blocks are priced once per message object and reused by later requests that price
 * the same way. Whatever a later request changes (pricing settings, pins, exclusions, the
 * messages themselves), its result must be the one a request on never-seen copies gives.
 */

/** What a caller can observe of a result, getters included (as a worker would post it). */
const observe = (input: ContextInput): unknown => structuredClone(assembleContext(input));

/** The same chain as new objects: nothing about them was memoized. */
const freshCopy = (chain: readonly ChatMessageSimple[]): ChatMessageSimple[] =>
  structuredClone([...chain]);

/** A caller's own remover, the same function on every request (so its blocks are reused too). */
const removeAnswerWord = (text: string): string => text.replaceAll('answer', '').trim();

/** A setting left as it was half the time, so later requests often price as earlier ones did. */
const keepOr = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | 'keep'> =>
  fc.oneof(fc.constant('keep' as const), arbitrary);

const changeArbitrary = fc.record({
  calibrationFactor: keepOr(fc.constantFrom(undefined, 1, 1.37, 0.8)),
  hasVision: keepOr(fc.boolean()),
  providerKind: keepOr(fc.constantFrom<ProviderKind>('openai', 'anthropic', 'google')),
  removal: keepOr(fc.constantFrom('default', 'shared', 'fresh')),
  /** Another strategy (steps cleared for one are reused only while they clear the same). */
  strategy: keepOr(strategyArbitrary),
  /**
   * Per message: 1 toggles its pin and 2 its exclusion (as copies, the way storage hands them
   * out), 3 toggles its pin on the same object; anything else keeps it as it is.
   */
  edits: fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 40 }),
});

type Change = typeof changeArbitrary extends fc.Arbitrary<infer T> ? T : never;

function pickRemoval(
  removal: Change['removal'],
  previous: ContextInput['removeFromText'],
): ContextInput['removeFromText'] {
  switch (removal) {
    case 'keep':
      return previous;
    case 'default':
      return undefined;
    case 'shared':
      return removeAnswerWord;
    case 'fresh':
      return (text: string) => removeDisplayArtifacts(text).toUpperCase();
  }
}

function applyChange(input: ContextInput, change: Change): ContextInput {
  const last = input.chain.length - 1;
  const chain = input.chain.map((message, index): ChatMessageSimple => {
    const edit = change.edits[index] ?? 0;
    if (edit === 1) return { ...message, isPinned: !message.isPinned };
    // The message being answered stays included: excluding it is another test's business.
    if (edit === 2 && index !== last) return { ...message, isExcluded: !message.isExcluded };
    if (edit === 3) message.isPinned = !message.isPinned;
    return message;
  });
  const { removeFromText: previousRemoval, calibrationFactor: previousFactor, ...rest } = input;
  const calibrationFactor =
    change.calibrationFactor === 'keep' ? previousFactor : change.calibrationFactor;
  const removeFromText = pickRemoval(change.removal, previousRemoval);
  return {
    ...rest,
    chain,
    model: {
      ...input.model,
      hasVision: change.hasVision === 'keep' ? input.model.hasVision : change.hasVision,
    },
    providerKind: change.providerKind === 'keep' ? input.providerKind : change.providerKind,
    historyStrategy: change.strategy === 'keep' ? input.historyStrategy : change.strategy,
    ...(calibrationFactor !== undefined ? { calibrationFactor } : {}),
    ...(removeFromText !== undefined ? { removeFromText } : {}),
  };
}

describe('history blocks reused across requests', () => {
  let counter: TokenCounter;
  beforeAll(async () => {
    counter = await createTokenCounter(['o200k_base']);
  });

  it('gives what never-seen copies of the chain give, whatever changed in between', () => {
    fc.assert(
      fc.property(
        sessionArbitrary,
        fc.array(changeArbitrary, { minLength: 1, maxLength: 3 }),
        (session, changes) => {
          let input = buildSessionInput(session, counter);
          expect(observe(input)).toEqual(observe({ ...input, chain: freshCopy(input.chain) }));
          for (const change of changes) {
            input = applyChange(input, change);
            expect(observe(input)).toEqual(observe({ ...input, chain: freshCopy(input.chain) }));
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('clears the same steps as never-seen copies when the clearing settings change', () => {
    const clearing = fc.record({
      kind: fc.constant('clear_tool_results' as const),
      triggerTokens: fc.constantFrom(1, 200),
      keep: fc.integer({ min: 0, max: 3 }),
      excludeTools: fc.subarray(['web_search', 'open_url']),
      shouldClearArguments: fc.boolean(),
    });
    fc.assert(
      fc.property(
        sessionArbitrary,
        fc.array(clearing, { minLength: 2, maxLength: 4 }),
        (session, strategies) => {
          const input = buildSessionInput(session, counter);
          for (const historyStrategy of strategies) {
            const next = { ...input, historyStrategy };
            expect(observe(next)).toEqual(observe({ ...next, chain: freshCopy(next.chain) }));
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('gives the same result to a repeated request, which reuses every history block', () => {
    fc.assert(
      fc.property(sessionArbitrary, (session) => {
        const input = buildSessionInput(session, counter);
        const first = observe(input);
        expect(observe(input)).toEqual(first);
        expect(observe({ ...input, chain: [...input.chain] })).toEqual(first);
      }),
      { numRuns: 100 },
    );
  });
});
