import type { ChatMessageSimple, ToolDefinition } from '../model';
import type { Result } from '../../util/result';
import { err, ok } from '../../util/result';
import {
  allocateBudget,
  decideProjectMode,
  resolveReservedOutput,
  resolveUploadShare,
  splitInputBudget,
} from './budget';
import { sharePricing } from './parts/block-pricing';
import type { Block, PartEnv } from './parts/part';
import { selectContextParts } from './parts/registry';
import { expandPlaceholders, formatCurrentDateTime, type PlaceholderValues } from './placeholders';
import { isOnlyDisplayArtifacts, removeDisplayArtifacts } from './remove-from-text';
import type { SectionContext } from './system-prompt/section';
import { createTokenMeter } from './token-meter';
import { createTurnReducer, type TurnReducer } from './reduce-turn';
import { clearOldToolResults } from './strategies/clear-tool-results';
import { trimToBudget, type DoesNotFit, type Trimmed } from './trim';
import type {
  AssembledContext,
  ContextError,
  ContextInput,
  ContextMessage,
  ContextShares,
  ContextTool,
  DroppedItem,
  DropReason,
  ProjectMode,
  RequiredPartName,
} from './types';

export const CITATION_REMINDER =
  'Cite the documents you use with their number in brackets, e.g. [1].';
/** The cache-friendly order's time of day, at the end of the request (the prompt has the day). */
export const CURRENT_TIME_REMINDER = 'It is now';
export const LAST_CYCLE_REMINDER =
  'You cannot call any more tools in this turn. Answer now with the information you already have.';

const PART_NAMES: Record<RequiredPartName, string> = {
  system: 'system prompt',
  custom_agent: 'custom agent prompt',
  project_files: 'project files',
  pinned: 'pinned messages',
  history: 'history',
  newest_turn: 'newest message',
  markers: 'trimming notes',
  reminder: 'reminder',
};

/**
 * Rounds of reducing the newest turn and trimming again: each round takes away about what the
 * last trim was over by; markers and estimates may need a second or third.
 */
export const MAX_REDUCTION_ROUNDS = 8;

const formatCount = (value: number): string => value.toLocaleString('en-US');

/** Tool definitions as the provider receives them; usage and flags stay on our side. */
function toDefinition(tool: ContextTool): ToolDefinition {
  return { name: tool.name, description: tool.description, inputSchema: tool.inputSchema };
}

function hasSessionSearch(chain: readonly ChatMessageSimple[]): boolean {
  return chain.some(
    (message) =>
      message.role === 'assistant' &&
      message.steps.some((step) =>
        step.toolCalls.some((call) => (call.result?.documents?.length ?? 0) > 0),
      ),
  );
}

function findAnchor(conversation: readonly ChatMessageSimple[]): number {
  for (let index = conversation.length - 1; index >= 0; index--) {
    if (conversation[index]?.role === 'user') return index;
  }
  return -1;
}

/** Largest citation number used in the current turn, so search results continue after it. */
function findLastDocumentNumber(env: PartEnv): number {
  let last = 0;
  const steps = [
    ...env.conversation
      .slice(env.anchorIndex)
      .flatMap((message) => (message.role === 'assistant' ? message.steps : [])),
    ...(env.input.turnSteps ?? []),
  ];
  for (const step of steps) {
    for (const call of step.toolCalls) {
      for (const doc of call.result?.documents ?? []) last = Math.max(last, doc.number);
    }
  }
  if (env.projectMode === 'inline') last = Math.max(last, env.input.project?.files.length ?? 0);
  return last;
}

function resolveCustomAgent(input: ContextInput, values: PlaceholderValues) {
  const agentPrompt = input.agent.prompt.trim();
  const instructions = input.project?.project.instructions.trim() ?? '';
  const isReplacing = input.agent.shouldReplaceSystemPrompt && agentPrompt.length > 0;
  const expand = (text: string): string => expandPlaceholders(text, values);
  if (isReplacing) {
    return {
      systemOverride: expand(agentPrompt),
      isSystemReplacedByAgent: true,
      customAgentText: instructions.length > 0 ? expand(instructions) : null,
      customAgentLabel: instructions.length > 0 ? 'project instructions' : undefined,
    };
  }
  const systemOverride = input.systemPromptOverride;
  if (agentPrompt.length > 0 && instructions.length > 0) {
    return {
      systemOverride,
      isSystemReplacedByAgent: false,
      customAgentText: expand(`${agentPrompt}\n\n# Project instructions\n${instructions}`),
      customAgentLabel: 'agent prompt and project instructions',
    };
  }
  if (agentPrompt.length > 0) {
    return {
      systemOverride,
      isSystemReplacedByAgent: false,
      customAgentText: expand(agentPrompt),
      customAgentLabel: undefined,
    };
  }
  if (instructions.length > 0) {
    return {
      systemOverride,
      isSystemReplacedByAgent: false,
      customAgentText: expand(instructions),
      customAgentLabel: 'project instructions',
    };
  }
  return {
    systemOverride,
    isSystemReplacedByAgent: false,
    customAgentText: null,
    customAgentLabel: undefined,
  };
}

/** Everything the parts read, worked out once per request (exported for the trim tests). */
export function prepareEnv(input: ContextInput): Result<PartEnv, ContextError> {
  const conversation: ChatMessageSimple[] = [];
  const excluded: ChatMessageSimple[] = [];
  for (const message of input.chain) (message.isExcluded ? excluded : conversation).push(message);
  const anchorIndex = findAnchor(conversation);
  if (anchorIndex < 0) {
    return err({ code: 'no_user_message', message: 'There is no user message to answer.' });
  }
  const placeholders: PlaceholderValues = {
    now: input.clock.now(),
    timeZone: input.clock.timeZone(),
    ...(input.userName !== undefined ? { userName: input.userName } : {}),
  };
  const projectMode: ProjectMode | null =
    input.project === null || input.project.files.length === 0
      ? null
      : (input.project.mode ??
        decideProjectMode(input.project.files, input.model, input.reservedOutputTokens));
  // In the cache-friendly order the system prompt and the agent prompt open every request: they
  // carry the day only, and the reminder at the end carries the time.
  const isCacheFriendly = input.agent.contextOrder === 'cache_friendly';
  const headPlaceholders: PlaceholderValues = isCacheFriendly
    ? { ...placeholders, isDateOnly: true }
    : placeholders;
  const reminderLines = [
    ...input.agent.reminders
      .map((line) => expandPlaceholders(line.trim(), placeholders))
      .filter((line) => line.length > 0),
    ...(input.hasSearchRunInTurn ? [CITATION_REMINDER] : []),
    ...(input.isLastCycle ? [LAST_CYCLE_REMINDER] : []),
    ...(isCacheFriendly
      ? [
          `${CURRENT_TIME_REMINDER} ${formatCurrentDateTime(placeholders.now, placeholders.timeZone)}.`,
        ]
      : []),
  ];
  const sectionContext: SectionContext = {
    tools: input.tools,
    hasSearchTool: input.tools.some((tool) => tool.isSearch === true),
    shouldExplainCitations:
      input.hasSearchRunInTurn || hasSessionSearch(conversation) || projectMode === 'inline',
    hasReminder: reminderLines.length > 0,
    isCompact: input.model.runsInBrowser === true,
  };
  const { removeFromText } = input;
  const shouldSendPastReasoning = input.agent.shouldSendPastReasoning === true;
  return ok({
    input,
    meter: createTokenMeter(input.tokenCounter, input.model.encoding, input.calibrationFactor),
    conversation,
    anchorIndex,
    excluded,
    projectMode,
    sectionContext,
    placeholders: headPlaceholders,
    ...resolveCustomAgent(input, headPlaceholders),
    reminderLines,
    historyReach: Number.POSITIVE_INFINITY,
    pricing: sharePricing(
      {
        counter: input.tokenCounter,
        encoding: input.model.encoding,
        calibrationFactor: input.calibrationFactor,
        providerKind: input.providerKind,
        hasVision: input.model.hasVision,
        removeFromText,
        shouldSendPastReasoning,
      },
      (meter) => ({
        meter,
        providerKind: input.providerKind,
        hasVision: input.model.hasVision,
        removeFromText: removeFromText ?? removeDisplayArtifacts,
        hasTextAfterRemoval:
          removeFromText === undefined
            ? (text) => !isOnlyDisplayArtifacts(text)
            : (text) => removeFromText(text).length > 0,
        shouldSendPastReasoning,
      }),
    ),
  });
}

function describeDoesNotFit(failure: DoesNotFit): ContextError {
  const detail = failure.parts
    .map((part) => `${PART_NAMES[part.part]} ${formatCount(part.tokens)}`)
    .join(', ');
  return {
    code: 'context_too_large',
    message:
      `This request needs about ${formatCount(failure.required)} tokens but the model can take ${formatCount(failure.available)} ` +
      `(${detail}). Remove attachments, shorten the message, or choose a model with a larger context window.`,
    required: failure.required,
    available: failure.available,
    parts: failure.parts,
  };
}

/** A file larger than the whole input budget can never be sent: refuse, naming it. */
function findOversizedFile(env: PartEnv, limit: number): ContextError | null {
  for (const message of env.conversation.slice(env.anchorIndex)) {
    if (message.role !== 'user') continue;
    for (const attachment of message.attachments) {
      if (attachment.kind === 'text' && attachment.tokenCount > limit) {
        return {
          code: 'file_too_large',
          message: `The file "${attachment.name}" has ${formatCount(attachment.tokenCount)} tokens, more than this model can take (${formatCount(limit)} tokens).`,
          fileName: attachment.name,
          tokens: attachment.tokenCount,
          limit,
        };
      }
    }
  }
  return null;
}

/**
 * What the model sees this cycle. Reads as the pipeline it is:
 * allocate budget → collect parts → trim → render.
 */
export function assembleContext(input: ContextInput): Result<AssembledContext, ContextError> {
  return assemble(input, true);
}

/**
 * The same assembly with every older message listed block by block, none summed up: what
 * `assembleContext` must give, whatever it leaves unlisted (exported for the equivalence tests).
 */
export function assembleContextListingAllHistory(
  input: ContextInput,
): Result<AssembledContext, ContextError> {
  return assemble(input, false);
}

function assemble(
  input: ContextInput,
  isHistorySummed: boolean,
): Result<AssembledContext, ContextError> {
  // 1. Allocate: pure arithmetic on the window, the reserved output and the tools offered.
  const prepared = prepareEnv(input);
  if (!prepared.ok) return prepared;
  const toolTokens =
    input.tools.length > 0
      ? prepared.value.meter.countText(JSON.stringify(input.tools.map(toDefinition)))
      : 0;
  const budget = allocateBudget(
    input.model,
    resolveReservedOutput(input.model, input.reservedOutputTokens),
    toolTokens,
  );
  // Older history than the whole input budget can hold is summed up, not listed block by block.
  const env: PartEnv = {
    ...prepared.value,
    historyReach: isHistorySummed ? budget.inputBudget : Number.POSITIVE_INFINITY,
  };
  const oversized = findOversizedFile(env, budget.inputBudget);
  if (oversized !== null) return err(oversized);

  // 2. Collect: every registered part prices its blocks, in the agent's context order.
  const blocks: Block[] = [];
  const dropped: DroppedItem[] = [];
  for (const part of selectContextParts(input.agent.contextOrder)) {
    const output = part.collect(env);
    // One by one: a spread of a long history's blocks could pass the engine's argument limit.
    for (const block of output.blocks) blocks.push(block);
    for (const item of output.dropped) dropped.push(item);
  }

  // 3. Trim: strategy, then the budget on top; cuts leave markers. Old tool results may be
  // cleared first (a strategy); a newest turn that does not fit has its results reduced.
  const strategy = input.historyStrategy ?? input.agent.historyStrategy;
  const changed =
    strategy.kind === 'clear_tool_results' ? clearOldToolResults(blocks, strategy, env.meter) : [];
  let trimmed = trimToBudget(blocks, strategy, budget.inputBudget, env);
  let reducer: TurnReducer | null = null;
  for (let round = 0; !trimmed.ok && round < MAX_REDUCTION_ROUNDS; round++) {
    reducer ??= createTurnReducer(blocks, env.meter);
    if (!reducer.reduce(trimmed.error.required - trimmed.error.available)) break;
    trimmed = trimToBudget(blocks, strategy, budget.inputBudget, env);
  }
  if (!trimmed.ok) return err(describeDoesNotFit(trimmed.error));
  if (reducer !== null) for (const item of reducer.reductions()) changed.push(item);

  // 4. Render: kept blocks in order with their markers; what was left out is reported lazily.
  const { kept, reasons, markers } = trimmed.value;
  const messages: ContextMessage[] = [];
  let markerAt = 0;
  for (let index = 0; index < blocks.length; index++) {
    const placed = markers[markerAt];
    if (placed !== undefined && placed.beforeIndex === index) {
      messages.push(...placed.messages);
      markerAt++;
    }
    if (kept[index] === true) messages.push(...(blocks[index]?.render() ?? []));
  }

  return ok(
    withLazyDropped(
      {
        messages,
        totalTokens: trimmed.value.totalTokens,
        budget,
        shares: measureShares(blocks, trimmed.value, budget.inputBudget, input),
        dropped,
        reductions: changed
          .filter((item) => kept[item.blockIndex] === true)
          .map((item) => item.reduction),
        projectMode: env.projectMode,
        nextDocumentNumber: findLastDocumentNumber(env) + 1,
      },
      () => reportDropped(blocks, kept, reasons, dropped),
    ),
  );
}

/** The upload share and the history's rest, and what each holds in this request. */
function measureShares(
  blocks: readonly Block[],
  trimmed: Trimmed,
  inputBudget: number,
  input: ContextInput,
): ContextShares {
  const uploadShare = resolveUploadShare(input.agent);
  let uploadTokens = 0;
  blocks.forEach((block, index) => {
    if (block.isUpload && trimmed.kept[index] === true) uploadTokens += block.tokens;
  });
  return {
    uploadShare,
    ...splitInputBudget(inputBudget, uploadShare),
    uploadTokens,
    historyTokens: trimmed.totalTokens - uploadTokens,
  };
}

/** Every message of a block the trim left out, with its price and why (after `before`). */
function reportDropped(
  blocks: readonly Block[],
  kept: readonly boolean[],
  reasons: ReadonlyArray<DropReason | undefined>,
  before: readonly DroppedItem[],
): DroppedItem[] {
  const dropped = [...before];
  for (let index = 0; index < blocks.length; index++) {
    const block = blocks[index];
    if (block === undefined || kept[index] === true) continue;
    const reason = reasons[index] ?? 'budget';
    for (const inner of block.elided?.blocks() ?? [block]) reportBlock(inner, reason, dropped);
  }
  return dropped;
}

function reportBlock(block: Block, reason: DropReason, dropped: DroppedItem[]): void {
  for (const item of block.price()) {
    const entry: DroppedItem = { kind: item.kind, reason, tokens: item.tokens };
    if (block.sourceId) entry.sourceId = block.sourceId;
    if (item.kind === 'file') entry.fileNames = block.files.map((file) => file.name);
    dropped.push(entry);
  }
}

/**
 * `dropped` lists every message left out, one entry each: at 10,000 messages that is some
 * 10,000 objects per cycle that the agent loop never reads. It is built on first read (an
 * enumerable getter, so spreading, JSON, structured cloning and equality see a plain array)
 * and is the same array on every later read; assigning replaces it.
 */
function withLazyDropped(context: AssembledContext, build: () => DroppedItem[]): AssembledContext {
  const settle = (value: DroppedItem[]): DroppedItem[] => {
    Object.defineProperty(context, 'dropped', {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
    return value;
  };
  Object.defineProperty(context, 'dropped', {
    get: () => settle(build()),
    set: settle,
    enumerable: true,
    configurable: true,
  });
  return context;
}

/** The messages as the LLM adapter takes them. */
export function toLlmMessages(context: AssembledContext): ContextMessage['message'][] {
  return context.messages.map((item) => item.message);
}
