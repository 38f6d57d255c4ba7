/**
 * The stores the open chat is read and edited through on the page: the database's for a saved
 * chat, the agent worker's memory for a temporary chat (the same calls, answered in the worker).
 */
import type { FileStore, MessageBranches, MessageStore, SessionStore } from '../../core/ports';
import type { AgentClient } from '../../workers/agent/agent.client';

export interface PageChatStores {
  sessions: Pick<SessionStore, 'get' | 'update'>;
  /** Branch reads and switches, and flag edits (pin, exclude); content is written by the worker. */
  messages: MessageStore & MessageBranches;
  /** The chat's attachments: read to show them, written as a file is attached. */
  files: Pick<FileStore, 'get' | 'put'>;
}

/** A temporary chat's stores: each call made on the agent worker's memory. */
export function createTemporaryChatStores(agent: Pick<AgentClient, 'temporaryChat'>): PageChatStores {
  return {
    sessions: {
      get: (id) => agent.temporaryChat('getSession', [id]),
      update: (id, patch) => agent.temporaryChat('updateSession', [id, patch]),
    },
    messages: {
      get: (id) => agent.temporaryChat('getMessage', [id]),
      put: (message) => agent.temporaryChat('putMessage', [message]),
      loadChain: (leafId) => agent.temporaryChat('loadChain', [leafId]),
      children: (sessionId, parentId) => agent.temporaryChat('children', [sessionId, parentId]),
      listStreaming: () => agent.temporaryChat('listStreaming', []),
      siblings: (id) => agent.temporaryChat('siblings', [id]),
      forkedParents: (sessionId) => agent.temporaryChat('forkedParents', [sessionId]),
      switchBranch: (id) => agent.temporaryChat('switchBranch', [id]),
      deleteBranch: (id) => agent.temporaryChat('deleteBranch', [id]),
      loadVisibleChain: (sessionId) => agent.temporaryChat('loadVisibleChain', [sessionId]),
      loadChainBelow: (leafId, ancestorId, maxLength) => agent.temporaryChat('loadChainBelow', [leafId, ancestorId, maxLength]),
      loadChainEnd: (leafId, maxLength) => agent.temporaryChat('loadChainEnd', [leafId, maxLength]),
    },
    files: {
      get: (id) => agent.temporaryChat('getFile', [id]),
      put: (file) => agent.temporaryChat('putFile', [file]),
    },
  };
}
