import { AgentRequestError } from '../../core/agent/process-message';
import { LlmRequestError } from '../../llm/errors';
import { isStorageError } from '../../storage';
import type { WorkerError } from '../protocol';

/** Errors cross the worker boundary as plain `{ code, message }`, keeping the code they carry. */
export function toWorkerError(error: unknown): WorkerError {
  if (error instanceof AgentRequestError) return { code: error.code, message: error.message };
  if (error instanceof LlmRequestError) return { code: error.error.code, message: error.error.message };
  if (isStorageError(error)) return { code: error.code, message: error.message };
  return { code: 'internal', message: error instanceof Error ? error.message : String(error) };
}
