// The contract each provider module fulfils. The server routes a request to one protocol
// and never needs to know the wire details itself.

import type { TurnPlan } from '../scenarios';

export type LlmProvider = 'openai' | 'anthropic' | 'gemini';

/** What the server learned about one generation request. */
export interface CallInfo {
  model: string;
  isStreaming: boolean;
  /** OpenAI `stream_options.include_usage`; ignored by the other protocols. */
  includeUsage: boolean;
}

export interface AuthInput {
  headers: Readonly<Record<string, string>>;
  query: Readonly<Record<string, string>>;
}

export type KeyValidator = (key: string) => boolean;

export interface ProviderProtocol {
  readonly provider: LlmProvider;
  readonly streamContentType: string;
  /** Catalogue id of the in-stream error a midstream-error scenario uses by default. */
  readonly defaultStreamErrorId: string;
  /** Catalogue id of the error to answer with, or undefined when the request may pass. */
  authFailure(input: AuthInput, isValidKey: KeyValidator): string | undefined;
  /** Text of the newest user message in a request body (for the echo scenario). */
  lastUserText(body: unknown): string;
  /** The whole SSE body as frames; for a hang ending it stops after the last delta. */
  encodeStream(plan: TurnPlan, call: CallInfo): string[];
  /** Non-streaming response body. */
  encodeResponse(plan: TurnPlan, call: CallInfo): unknown;
  /** A provider-shaped error body for http-error scenarios that give no body. */
  genericErrorBody(status: number, message: string): string;
  listModels(ids: readonly string[]): unknown;
}
