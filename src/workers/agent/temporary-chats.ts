/**
 * Temporary chats as the page reaches them: the reads and edits of the chat it shows (the same
 * store calls it makes on the database for a saved chat), "Save this chat", and letting go of a
 * chat the person left. They live in this worker's memory only (`chat-backends.ts`).
 */
import { asSessionId } from '../../core/model';
import type { Ids } from '../../core/ports';
import type { CarrelDb } from '../../storage/db';
import { copyChatWithNewIds, writeNewChat } from '../../storage/chat-copy';
import type { WorkerResult } from '../protocol';
import type { TemporaryChatCall, TemporaryChatCalls } from './agent.api';
import type { ChatBackends } from './chat-backends';
import { toWorkerError } from './worker-errors';

export interface TemporaryChatsDeps {
  chats: ChatBackends;
  db: CarrelDb;
  ids: Ids;
  /** Whether a run of the session is going in this worker. */
  isRunning(sessionId: string): boolean;
  stop(sessionId: string): void;
}

export interface TemporaryChats {
  call<K extends TemporaryChatCall>(call: K, args: Parameters<TemporaryChatCalls[K]>): ReturnType<TemporaryChatCalls[K]>;
  /** Writes the chat (every branch, its summaries and usage) as a saved chat with new ids. */
  save(sessionId: string): Promise<WorkerResult<{ sessionId: string }>>;
  /** Stops the chat's run if any and forgets it. */
  discard(sessionId: string): Promise<void>;
}

export function createTemporaryChats(deps: TemporaryChatsDeps): TemporaryChats {
  const { sessions, messages, files } = deps.chats.temporary;
  const calls: TemporaryChatCalls = {
    getSession: (id) => sessions.get(id),
    updateSession: (id, patch) => sessions.update(id, patch),
    getMessage: (id) => messages.get(id),
    putMessage: (message) => messages.put(message),
    loadChain: (leafId) => messages.loadChain(leafId),
    children: (sessionId, parentId) => messages.children(sessionId, parentId),
    listStreaming: () => messages.listStreaming(),
    siblings: (id) => messages.siblings(id),
    forkedParents: (sessionId) => messages.forkedParents(sessionId),
    switchBranch: (id) => messages.switchBranch(id),
    deleteBranch: (id) => messages.deleteBranch(id),
    loadVisibleChain: (sessionId) => messages.loadVisibleChain(sessionId),
    loadChainBelow: (leafId, ancestorId, maxLength) => messages.loadChainBelow(leafId, ancestorId, maxLength),
    loadChainEnd: (leafId, maxLength) => messages.loadChainEnd(leafId, maxLength),
    getFile: (id) => files.get(id),
    putFile: (file) => files.put(file),
  };

  return {
    call(call, args) {
      if (!Object.hasOwn(calls, call)) throw new Error(`There is no temporary chat call named "${String(call)}".`);
      const run = calls[call] as (...args: unknown[]) => ReturnType<TemporaryChatCalls[typeof call]>;
      return run(...args);
    },

    async save(sessionId) {
      if (deps.isRunning(sessionId)) {
        return { ok: false, error: { code: 'session_busy', message: 'Wait for the answer to finish (or stop it), then save the chat.' } };
      }
      try {
        const id = asSessionId(sessionId);
        const session = await sessions.get(id);
        if (!session) return { ok: false, error: { code: 'not_found', message: 'This temporary chat is gone: it was closed or the page reloaded.' } };
        const { temporary } = deps.chats;
        const copy = copyChatWithNewIds(
          {
            session,
            messages: temporary.listMessages(id),
            summaries: await temporary.summaries.listBySession(id),
            usage: await temporary.usage.listBySession(id),
            files: await temporary.attachedFiles(id),
          },
          () => deps.ids.newId(),
        );
        await writeNewChat(deps.db, copy, 'This chat could not be saved');
        // Saved: the copy in the database is the chat from now on.
        await sessions.delete(id);
        return { ok: true, value: { sessionId: copy.session.id } };
      } catch (error) {
        return { ok: false, error: toWorkerError(error) };
      }
    },

    async discard(sessionId) {
      deps.stop(sessionId);
      await sessions.delete(asSessionId(sessionId));
    },
  };
}
