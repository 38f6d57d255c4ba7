import {
  isEmptyGeneration,
  DEFAULT_UPLOAD_SHARE,
  MAX_UPLOAD_SHARE,
  type Agent,
  type AgentId,
  type ContextOrder,
  type HistoryStrategy,
} from '../../core/model';
import { decodeModel, encodeModel } from '../chat/model-refs';
import { parseGenerationForm, toGenerationFormValues, type GenerationFormValues } from './generation-form';

/** The tools the built-in agent offers, and a new agent starts with. */
export const DEFAULT_AGENT_TOOL_NAMES = ['web_search', 'open_url', 'search_project', 'read_file'] as const;
/**
 * The tools an agent can switch on by name (MCP tools come from Settings' servers). Searching
 * past chats is opt-in: it reads the user's other conversations, so no agent has it unasked.
 */
export const AGENT_TOOL_NAMES = [...DEFAULT_AGENT_TOOL_NAMES, 'search_chats'] as const;

/** The agent editor's fields, as plain strings and booleans bound to inputs. */
export interface AgentFormValues {
  name: string;
  prompt: string;
  shouldReplaceSystemPrompt: boolean;
  /** One reminder per line. */
  reminders: string;
  /** `${providerId}\u0000${modelId}`, or '' for none. */
  defaultModel: string;
  enabledTools: string[];
  /** Extra tool names, one per line (e.g. mcp:<server id> or mcp__server__tool). */
  mcpTools: string;
  strategyKind: HistoryStrategy['kind'];
  bufferSize: number;
  head: number;
  tail: number;
  maxTokens: number;
  generation: GenerationFormValues;
  contextOrder: ContextOrder;
  shouldSendPastReasoning: boolean;
  /** Turns kept by `last_turns`, the current one included. */
  turns: number;
  /** `clear_tool_results`: the context size that starts clearing, calls kept, tools never cleared (one per line). */
  clearTriggerTokens: number;
  clearKeep: number;
  clearExcludeTools: string;
  shouldClearArguments: boolean;
  /** Percent of the input budget reserved for uploaded files (0 to 90). */
  uploadSharePercent: number;
  /** Summarise the oldest turns of long chats in the background (compaction). */
  isCompactionEnabled: boolean;
}

/** Defaults shown for strategies the agent does not use yet. */
const DEFAULT_BUFFER_SIZE = 20;
const DEFAULT_HEAD = 2;
const DEFAULT_TAIL = 10;
const DEFAULT_MAX_TOKENS = 8000;
const DEFAULT_TURNS = 5;
const DEFAULT_CLEAR_TRIGGER_TOKENS = 30000;
const DEFAULT_CLEAR_KEEP = 3;
const PERCENT = 100;

export function toFormValues(agent: Agent): AgentFormValues {
  const strategy = agent.historyStrategy;
  return {
    name: agent.name,
    prompt: agent.prompt,
    shouldReplaceSystemPrompt: agent.shouldReplaceSystemPrompt,
    reminders: agent.reminders.join('\n'),
    defaultModel: encodeModel(agent.defaultModel),
    enabledTools: agent.enabledTools.filter((tool) => (AGENT_TOOL_NAMES as readonly string[]).includes(tool)),
    mcpTools: agent.enabledTools.filter((tool) => !(AGENT_TOOL_NAMES as readonly string[]).includes(tool)).join('\n'),
    strategyKind: strategy.kind,
    bufferSize: strategy.kind === 'buffered' ? strategy.size : DEFAULT_BUFFER_SIZE,
    head: strategy.kind === 'head_and_tail' ? strategy.head : DEFAULT_HEAD,
    tail: strategy.kind === 'head_and_tail' ? strategy.tail : DEFAULT_TAIL,
    maxTokens: strategy.kind === 'token_limited' ? strategy.maxTokens : DEFAULT_MAX_TOKENS,
    generation: toGenerationFormValues(agent.generation),
    contextOrder: agent.contextOrder ?? 'recency',
    shouldSendPastReasoning: agent.shouldSendPastReasoning === true,
    turns: strategy.kind === 'last_turns' ? strategy.turns : DEFAULT_TURNS,
    clearTriggerTokens: strategy.kind === 'clear_tool_results' ? strategy.triggerTokens : DEFAULT_CLEAR_TRIGGER_TOKENS,
    clearKeep: strategy.kind === 'clear_tool_results' ? strategy.keep : DEFAULT_CLEAR_KEEP,
    clearExcludeTools: strategy.kind === 'clear_tool_results' ? strategy.excludeTools.join('\n') : '',
    shouldClearArguments: strategy.kind === 'clear_tool_results' ? strategy.shouldClearArguments : false,
    uploadSharePercent: Math.round((agent.uploadShare ?? DEFAULT_UPLOAD_SHARE) * PERCENT),
    isCompactionEnabled: agent.isCompactionEnabled !== false,
  };
}

export function toHistoryStrategy(values: AgentFormValues): HistoryStrategy {
  switch (values.strategyKind) {
    case 'auto':
    case 'unbounded':
      return { kind: values.strategyKind };
    case 'buffered':
      return { kind: 'buffered', size: Math.max(1, Math.round(values.bufferSize)) };
    case 'head_and_tail':
      return { kind: 'head_and_tail', head: Math.max(0, Math.round(values.head)), tail: Math.max(1, Math.round(values.tail)) };
    case 'token_limited':
      return { kind: 'token_limited', maxTokens: Math.max(1, Math.round(values.maxTokens)) };
    case 'last_turns':
      return { kind: 'last_turns', turns: Math.max(1, Math.round(values.turns)) };
    case 'clear_tool_results':
      return {
        kind: 'clear_tool_results',
        triggerTokens: Math.max(1, Math.round(values.clearTriggerTokens)),
        keep: Math.max(0, Math.round(values.clearKeep)),
        excludeTools: splitLines(values.clearExcludeTools),
        shouldClearArguments: values.shouldClearArguments,
      };
  }
}

/** The share of the budget for uploads, from the form's percent, within its bounds. */
export function toUploadShare(values: Pick<AgentFormValues, 'uploadSharePercent'>): number {
  const percent = Number.isFinite(values.uploadSharePercent) ? values.uploadSharePercent : DEFAULT_UPLOAD_SHARE * PERCENT;
  return Math.min(MAX_UPLOAD_SHARE, Math.max(0, Math.round(percent) / PERCENT));
}

function splitLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** The problem with the form, or '' when it can be saved. */
export function validateAgentForm(values: AgentFormValues): string {
  if (values.name.trim() === '') return 'Give the agent a name.';
  if (values.shouldReplaceSystemPrompt && values.prompt.trim() === '') {
    return 'A prompt that replaces the system prompt cannot be empty.';
  }
  if (!Number.isFinite(values.uploadSharePercent) || values.uploadSharePercent < 0 || values.uploadSharePercent > MAX_UPLOAD_SHARE * PERCENT) {
    return `The share for uploaded files must be between 0 and ${MAX_UPLOAD_SHARE * PERCENT} percent.`;
  }
  const generation = parseGenerationForm(values.generation);
  return generation.ok ? '' : generation.problem;
}

/** The agent the form describes, keeping id, origin and creation time of `base`. */
export function applyFormValues(base: Agent, values: AgentFormValues, now: number): Agent {
  const lines = splitLines;
  // Generation settings left empty are not stored: the provider's defaults hold.
  const { generation: _previous, ...rest } = base;
  const parsed = parseGenerationForm(values.generation);
  const generation = parsed.ok && !isEmptyGeneration(parsed.settings) ? parsed.settings : undefined;
  return {
    ...rest,
    name: values.name.trim(),
    prompt: values.prompt,
    shouldReplaceSystemPrompt: values.shouldReplaceSystemPrompt,
    reminders: lines(values.reminders),
    defaultModel: decodeModel(values.defaultModel),
    enabledTools: [...new Set([...values.enabledTools, ...lines(values.mcpTools)])],
    historyStrategy: toHistoryStrategy(values),
    ...(generation === undefined ? {} : { generation }),
    contextOrder: values.contextOrder,
    shouldSendPastReasoning: values.shouldSendPastReasoning,
    ...resolveUploadShareField(base, toUploadShare(values)),
    // Compaction is on unless turned off: an agent that never said stays unset.
    ...(values.isCompactionEnabled && base.isCompactionEnabled === undefined ? {} : { isCompactionEnabled: values.isCompactionEnabled }),
    updatedAt: now,
  };
}

/** An agent that never chose a share keeps following the default until the share is changed. */
function resolveUploadShareField(base: Agent, share: number): Pick<Agent, 'uploadShare'> {
  if (base.uploadShare === undefined && share === DEFAULT_UPLOAD_SHARE) return {};
  return { uploadShare: share };
}

/** A new, empty custom agent. */
export function createBlankAgent(id: AgentId, now: number): Agent {
  return {
    id,
    name: 'New agent',
    prompt: '',
    shouldReplaceSystemPrompt: false,
    reminders: [],
    defaultModel: null,
    // The tools the built-in agent offers, ticked, so a new agent can do what it can.
    enabledTools: [...DEFAULT_AGENT_TOOL_NAMES],
    historyStrategy: { kind: 'auto' },
    contextOrder: 'recency',
    shouldSendPastReasoning: false,
    isBuiltIn: false,
    createdAt: now,
    updatedAt: now,
  };
}

/** Which tools an agent offers, by name, for the agents list. */
export function describeAgentTools(agent: Pick<Agent, 'isBuiltIn' | 'enabledTools'>): string {
  if (agent.isBuiltIn) return `${DEFAULT_AGENT_TOOL_NAMES.join(', ')} and MCP tools`;
  return agent.enabledTools.length > 0 ? agent.enabledTools.join(', ') : 'no tools';
}

/** A copy under a new id, named so the two are told apart. */
export function duplicateAgent(agent: Agent, id: AgentId, now: number): Agent {
  return { ...agent, id, name: `${agent.name} (copy)`, isBuiltIn: false, createdAt: now, updatedAt: now };
}
