import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LlmErrorCode, ProviderPreset } from '../../../src/core/model';
import { createLlmClient } from '../../../src/llm';
import type { FixtureWire } from './replay';
import {
  FIXTURES_DIR,
  buildProvider,
  buildRequest,
  collectEvents,
  createStubFetch,
  frameEvent,
} from './replay';

interface ErrorEntry {
  id: string;
  status: number;
  transport: 'http-body' | 'sse-data';
  body?: string;
  body_file?: string;
}

const ERROR_FILES = [
  'openai-error-bodies.json',
  'anthropic-error-bodies.json',
  'gemini-error-bodies.json',
  'openai-compatible-error-bodies.json',
];

/** The code a person should see for every catalogued provider error. */
const EXPECTED_CODES: Record<string, LlmErrorCode> = {
  'openai-401-invalid-api-key': 'invalid_key',
  'openai-429-rate-limit-tpm': 'rate_limited',
  // Larger than the account's tokens-per-minute limit: waiting never helps, shortening does.
  'openai-429-request-too-large': 'context_too_long',
  'openai-429-insufficient-quota': 'quota_exceeded',
  'openai-400-context-length-exceeded-chat': 'context_too_long',
  'openai-responses-stream-context-length-exceeded': 'context_too_long',
  'openai-400-unsupported-parameter': 'bad_request',
  'openai-chat-stream-server-error': 'server_error',
  'anthropic-401-invalid-x-api-key': 'invalid_key',
  'anthropic-401-cors-header-missing': 'cors',
  'anthropic-401-cors-not-allowed-for-org': 'cors',
  'anthropic-400-prompt-too-long': 'context_too_long',
  'anthropic-400-input-plus-max-tokens-exceed': 'context_too_long',
  'anthropic-429-rate-limit': 'rate_limited',
  'anthropic-529-overloaded': 'overloaded',
  'anthropic-stream-overloaded': 'overloaded',
  'gemini-400-api-key-invalid': 'invalid_key',
  'gemini-400-input-token-count-exceeded': 'context_too_long',
  'gemini-429-resource-exhausted': 'rate_limited',
  'gemini-503-unavailable-high-demand': 'overloaded',
  'gemini-404-model-not-found-streaming': 'not_found',
  'gemini-stream-prompt-blocked': 'content_filter',
  'openrouter-401-no-auth': 'invalid_key',
  'openrouter-401-user-not-found': 'invalid_key',
  'openrouter-402-insufficient-credits': 'quota_exceeded',
  'openrouter-400-context-length': 'context_too_long',
  'deepseek-400-context-length': 'context_too_long',
  'ollama-404-model-not-found': 'not_found',
  'openrouter-stream-midstream-error': 'server_error',
  'lmstudio-context-overflow': 'context_too_long',
};

function selectEntryProvider(
  file: string,
  id: string,
): { preset: ProviderPreset; wire: FixtureWire } {
  if (file.startsWith('anthropic')) return { preset: 'anthropic', wire: 'anthropic' };
  if (file.startsWith('gemini')) return { preset: 'google', wire: 'google' };
  if (file.startsWith('openai-error')) {
    return id.startsWith('openai-responses')
      ? { preset: 'openai', wire: 'openai-responses' }
      : { preset: 'openai', wire: 'openai-chat' };
  }
  const preset = (['openrouter', 'deepseek', 'ollama', 'lmstudio'] as const).find((name) =>
    id.startsWith(name),
  );
  return { preset: preset ?? 'custom', wire: 'openai-compatible' };
}

const ENTRIES = ERROR_FILES.flatMap((file) => {
  const parsed = JSON.parse(readFileSync(join(FIXTURES_DIR, file), 'utf8')) as {
    errors: ErrorEntry[];
  };
  return parsed.errors.map((entry) => ({ file, entry }));
});

beforeAll(() => {
  (globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
});

describe('mapping provider error bodies to typed errors', () => {
  it('has an expected code for every catalogued error body', () => {
    expect(ENTRIES.length).toBe(30);
    expect(ENTRIES.map(({ entry }) => entry.id).sort()).toEqual(Object.keys(EXPECTED_CODES).sort());
  });

  for (const { file, entry } of ENTRIES) {
    it(`reports ${entry.id} (${entry.transport}) as ${EXPECTED_CODES[entry.id]}`, async () => {
      const { preset, wire } = selectEntryProvider(file, entry.id);
      const body = entry.body ?? readFileSync(join(FIXTURES_DIR, entry.body_file ?? ''), 'utf8');
      const reply =
        entry.transport === 'http-body'
          ? { status: entry.status, body }
          : {
              body:
                frameEvent(wire, body) +
                (wire === 'openai-chat' || wire === 'openai-compatible' ? 'data: [DONE]\n\n' : ''),
            };
      const stub = createStubFetch(() => reply);
      const sleeps: number[] = [];
      const client = createLlmClient({
        fetch: stub.fetch,
        sleep: (ms) => {
          sleeps.push(ms);
          return Promise.resolve();
        },
      });
      const provider = buildProvider(
        preset,
        wire === 'openai-responses' ? { api: 'responses' } : {},
      );
      const events = await collectEvents(
        client.stream(buildRequest(provider), new AbortController().signal),
      );
      const errors = events.flatMap((event) => (event.type === 'error' ? [event.error] : []));
      expect(errors).toHaveLength(1);
      expect(errors[0]?.code).toBe(EXPECTED_CODES[entry.id]);
      expect(errors[0]?.message.length).toBeGreaterThan(20);
      expect(events.at(-1)?.type).toBe('finish');
      expect(events.at(-1)).not.toEqual({ type: 'finish', reason: 'stop' });
    });
  }
});
