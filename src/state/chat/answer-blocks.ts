import { labelFusedSource, type AssistantMessage, type Citation, type MessageStatus, type ModelRef, type ToolResult, type Usage } from '../../core/model';
import type { Packet } from '../../workers/agent/agent.api';

/**
 * How the UI shows an assistant answer: a list of blocks (reasoning, text, tool calls), the
 * `turnIndex` of the agent's packets. Built from packets while streaming and from the stored
 * message afterwards, so both render through the same components.
 */
export type AnswerBlock =
  | { kind: 'reasoning'; text: string; isDone: boolean; durationMs?: number; startedAt?: number }
  | { kind: 'text'; text: string }
  | { kind: 'tools'; calls: ToolCallView[] };

export interface ToolCallView {
  id: string;
  name: string;
  argumentsText: string;
  status: 'pending' | 'complete' | 'error' | 'cancelled';
  result?: ToolResult;
}

export interface AnswerView {
  messageId: string;
  modelIndex: number;
  modelLabel: string;
  blocks: AnswerBlock[];
  status: MessageStatus;
  error?: { code: string; message: string };
  /** What the person should know about this answer that did not stop it (a tool server down). */
  warnings: string[];
  /** The sources `[n]` in the text refers to, by number. */
  citations: Citation[];
  usage?: Usage;
  model?: ModelRef;
  isPinned: boolean;
  isExcluded: boolean;
  /** A merged answer's sources: the compared answers it combines, labelled with their models. */
  fusedFrom?: Array<{ messageId: string; label: string }>;
}

export function createLiveAnswer(
  messageId: string,
  modelIndex: number,
  modelLabel: string,
  model?: ModelRef,
): AnswerView {
  return {
    messageId,
    modelIndex,
    modelLabel,
    blocks: [],
    status: 'streaming',
    citations: [],
    warnings: [],
    isPinned: false,
    isExcluded: false,
    ...(model ? { model } : {}),
  };
}

/**
 * Applies one packet to a live answer (mutates it: the caller owns a reactive proxy). `now`
 * times the reasoning ("Thought for 3 s") while it streams.
 */
export function applyPacket(answer: AnswerView, packet: Packet, now: number = Date.now()): void {
  const { obj, placement } = packet;
  const index = placement.turnIndex;
  switch (obj.type) {
    case 'message_delta': {
      const block = ensureBlock(answer, index, () => ({ kind: 'text', text: '' }));
      if (block.kind === 'text') block.text += obj.text;
      break;
    }
    case 'reasoning_start':
      ensureBlock(answer, index, () => ({ kind: 'reasoning', text: '', isDone: false, startedAt: now }));
      break;
    case 'reasoning_delta': {
      const block = ensureBlock(answer, index, () => ({ kind: 'reasoning', text: '', isDone: false, startedAt: now }));
      if (block.kind === 'reasoning') block.text += obj.text;
      break;
    }
    case 'tool_call_start': {
      const block = ensureBlock(answer, index, () => ({ kind: 'tools', calls: [] }));
      if (block.kind === 'tools') {
        block.calls.push({ id: obj.toolCallId, name: obj.name, argumentsText: '', status: 'pending' });
      }
      break;
    }
    case 'tool_call_delta': {
      const call = findCall(answer, obj.toolCallId);
      if (call) call.argumentsText += obj.argumentsDelta;
      break;
    }
    case 'tool_result': {
      const call = findCall(answer, obj.toolCallId);
      if (call) {
        call.status = obj.status;
        call.result = obj.result;
      }
      break;
    }
    case 'section_end': {
      const block = answer.blocks[index];
      if (block?.kind === 'reasoning') {
        block.isDone = true;
        if (block.durationMs === undefined && block.startedAt !== undefined) block.durationMs = now - block.startedAt;
      }
      break;
    }
    case 'citation':
      if (!answer.citations.some((c) => c.number === obj.citation.number)) answer.citations.push(obj.citation);
      break;
    case 'error':
      answer.error = { code: obj.code, message: obj.message };
      break;
    case 'warning':
      if (!answer.warnings.includes(obj.message)) answer.warnings.push(obj.message);
      break;
    case 'stop':
      answer.status =
        obj.reason === 'user_cancelled'
          ? 'stopped'
          : obj.reason === 'error'
            ? 'error'
            : obj.reason === 'interrupted'
              ? 'interrupted'
              : 'complete';
      break;
    case 'message_start':
    case 'overall_stop':
      break;
  }
}

function ensureBlock(answer: AnswerView, index: number, create: () => AnswerBlock): AnswerBlock {
  while (answer.blocks.length <= index) answer.blocks.push(create());
  return answer.blocks[index] as AnswerBlock;
}

function findCall(answer: AnswerView, id: string): ToolCallView | undefined {
  for (const block of answer.blocks) {
    if (block.kind !== 'tools') continue;
    const call = block.calls.find((c) => c.id === id);
    if (call) return call;
  }
  return undefined;
}

/** The same blocks for a stored message: per step, reasoning, then text, then tool calls. */
export function answerFromMessage(message: AssistantMessage, modelLabel: string): AnswerView {
  const blocks: AnswerBlock[] = [];
  for (const step of message.steps) {
    if (step.reasoning && step.reasoning.text.length > 0) {
      blocks.push({
        kind: 'reasoning',
        text: step.reasoning.text,
        isDone: true,
        ...(step.reasoning.durationMs !== undefined ? { durationMs: step.reasoning.durationMs } : {}),
      });
    }
    if (step.text.length > 0) blocks.push({ kind: 'text', text: step.text });
    if (step.toolCalls.length > 0) {
      blocks.push({
        kind: 'tools',
        calls: step.toolCalls.map((call) => ({
          id: call.id,
          name: call.name,
          argumentsText: call.argumentsText,
          status: call.status,
          ...(call.result ? { result: call.result } : {}),
        })),
      });
    }
  }
  return {
    messageId: message.id,
    modelIndex: 0,
    modelLabel,
    blocks,
    status: message.status,
    citations: message.citations,
    warnings: [],
    isPinned: message.isPinned,
    isExcluded: message.isExcluded,
    ...(message.error ? { error: message.error } : {}),
    ...(message.usage ? { usage: message.usage } : {}),
    ...(message.model ? { model: message.model } : {}),
    ...(message.fusedFrom
      ? { fusedFrom: message.fusedFrom.map((source, index) => ({ messageId: source.messageId, label: labelFusedSource(source, index) })) }
      : {}),
  };
}
