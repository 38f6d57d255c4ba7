import { z } from 'zod';
import type { usageSchema } from './message';

/** Typed provider error codes, each with a message a person can act on. */
export const llmErrorCodeSchema = z.enum([
  'invalid_key',
  /** Nothing was sent: the provider has no key, or its key belongs to another origin. */
  'key_needed',
  'rate_limited',
  'quota_exceeded',
  'context_too_long',
  /** HTTP 413: the request body was larger than the provider (or a proxy before it) accepts. */
  'request_too_large',
  'overloaded',
  'cors',
  'offline',
  /** The connection broke after the answer had started. */
  'connection_lost',
  'bad_request',
  'not_found',
  'server_error',
  'content_filter',
  'stream_error',
  'aborted',
  'unknown',
]);
export type LlmErrorCode = z.infer<typeof llmErrorCodeSchema>;

export const llmErrorSchema = z.object({
  code: llmErrorCodeSchema,
  message: z.string(),
  status: z.number().int().optional(),
  retryAfterMs: z.number().nonnegative().optional(),
  /** The provider's own message, kept for the details view. */
  providerMessage: z.string().optional(),
});
export type LlmError = z.infer<typeof llmErrorSchema>;

export const finishReasonSchema = z.enum([
  'stop',
  'length',
  'tool-calls',
  'content-filter',
  'error',
  'interrupted',
]);
export type FinishReason = z.infer<typeof finishReasonSchema>;

/**
 * Normalised stream events from any provider. A stream always ends with exactly one `finish`;
 * a stream that ends without its provider's final event finishes as `interrupted`.
 */
export type LlmEvent =
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'reasoning-end'; providerState?: Record<string, unknown> }
  | { type: 'tool-call-start'; id: string; name: string }
  | { type: 'tool-call-delta'; id: string; argumentsDelta: string }
  | {
      type: 'tool-call-end';
      id: string;
      name: string;
      argumentsText: string;
      /** Opaque provider state on the call itself (Gemini puts its thoughtSignature here). */
      providerState?: Record<string, unknown>;
    }
  | { type: 'usage'; usage: z.infer<typeof usageSchema> }
  | { type: 'error'; error: LlmError }
  | { type: 'finish'; reason: FinishReason };
