import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assembleContext, selectCacheBreakpoints, type AssembledContext, type ContextError, type ContextMessage } from '../../src/core/context';
import type { TokenCounter } from '../../src/core/ports';
import { createTokenCounter } from '../../src/core/tokens';
import type { Result } from '../../src/util/result';
import { buildContextInput, contextCaseSchema, type ContextCase } from '../builders';

/**
 * Every folder under golden/context is a case: `input.json` (the compact case) and
 * `expected.json` (the rendered messages with kinds and tokens). `UPDATE_GOLDEN=1` rewrites the
 * expected files; review them by eye, they are the spec.
 */

const CASES_DIR = join(import.meta.dirname, 'context');
const SHOULD_UPDATE = process.env.UPDATE_GOLDEN === '1';

function describeContent(message: ContextMessage['message']): unknown {
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => {
    switch (part.type) {
      case 'text':
        return { text: part.text };
      case 'image':
        return { image: part.image, mediaType: part.mediaType };
      case 'reasoning':
        return { reasoning: part.text, ...(part.providerState ? { providerState: part.providerState } : {}) };
      case 'tool-call':
        return { toolCall: part.toolName, id: part.toolCallId, input: part.input };
      case 'tool-result':
        return { toolResult: part.toolName, id: part.toolCallId, output: part.output, ...(part.isError ? { isError: true } : {}) };
    }
  });
}

/**
 * Cases about the context order (their agent names one) also record where the request's
 * stable prefixes end: the messages Anthropic requests mark for caching. Shares and reductions
 * are shown where a case is about them, so older cases read as before.
 */
function describeResult(result: Result<AssembledContext, ContextError>, spec: ContextCase): unknown {
  const shouldShowCacheBreakpoints = spec.agent?.contextOrder !== undefined;
  if (!result.ok) return { ok: false, error: result.error };
  const context = result.value;
  return {
    ...(shouldShowCacheBreakpoints
      ? { cacheBreakpoints: selectCacheBreakpoints(context.messages) }
      : {}),
    ok: true,
    projectMode: context.projectMode,
    budget: context.budget,
    totalTokens: context.totalTokens,
    nextDocumentNumber: context.nextDocumentNumber,
    messages: context.messages.map((item) => ({
      kind: item.kind,
      role: item.message.role,
      tokens: item.tokens,
      ...(item.sourceId ? { sourceId: item.sourceId } : {}),
      ...(item.label ? { label: item.label } : {}),
      ...(item.summaryOf ? { summaryOf: item.summaryOf } : {}),
      content: describeContent(item.message),
    })),
    dropped: context.dropped,
    ...(spec.agent?.uploadShare !== undefined ? { shares: context.shares } : {}),
    ...(context.reductions.length > 0 ? { reductions: context.reductions } : {}),
  };
}

const caseNames = readdirSync(CASES_DIR, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

describe('context assembly golden cases', () => {
  let counter: TokenCounter;
  beforeAll(async () => {
    counter = await createTokenCounter(['o200k_base', 'cl100k_base']);
  });

  it('has cases to run', () => {
    expect(caseNames.length).toBeGreaterThan(0);
  });

  for (const name of caseNames) {
    it(`renders ${name} as expected`, () => {
      const dir = join(CASES_DIR, name);
      const spec = contextCaseSchema.parse(JSON.parse(readFileSync(join(dir, 'input.json'), 'utf8')));
      const actual = describeResult(assembleContext(buildContextInput(spec, counter)), spec);
      const expectedPath = join(dir, 'expected.json');
      if (SHOULD_UPDATE) {
        writeFileSync(expectedPath, `${JSON.stringify(actual, null, 2)}\n`);
        return;
      }
      expect(existsSync(expectedPath), `${name}/expected.json is missing; run with UPDATE_GOLDEN=1`).toBe(true);
      expect(actual).toEqual(JSON.parse(readFileSync(expectedPath, 'utf8')));
    });
  }
});
