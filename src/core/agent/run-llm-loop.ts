import type { AssistantStep, LlmError, LlmMessage, StopReason, ToolCall, ToolDefinition, ToolResult, Usage } from '../model';
import type { Clock, LlmClient, LlmRequest, TokenCounter } from '../ports';
import type { Result } from '../../util/result';
import { CitationProcessor } from '../citations/citation-processor';
import type { Citation } from '../model';
import type { Emitter } from './emitter';
import { runLlmStep, type StepToolCall } from './run-llm-step';
import type { StateContainer } from './state-container';
import { executeToolCalls, type ExecuteContext } from './execute-tool-calls';
import { toToolDefinition, type Tool } from './tools/tool';

/** A turn runs at most this many inferences; the last one offers no tools. */
export const MAX_LLM_CYCLES = 6;

export interface CycleContextRequest {
  /** Steps already taken in this turn, with tool calls and their full results. */
  turnSteps: AssistantStep[];
  tools: ToolDefinition[];
  hasSearchRun: boolean;
  isLastCycle: boolean;
}

export interface CycleContext {
  messages: LlmMessage[];
  /** Our own estimate of the request's input tokens before calibration (messages and tools). */
  estimatedInputTokens?: number;
  /** The first citation number not taken by documents already in the context (rule 5). */
  nextDocumentNumber: number;
  /** The most output tokens this prompt leaves room for in the model's window. */
  outputTokenRoom?: number;
  /** Where the request's stable prefixes end (message indexes), for prompt caching. */
  cacheBreakpoints?: number[];
}

export interface ContextFailure {
  code: string;
  message: string;
}

export interface LoopDeps {
  llm: LlmClient;
  clock: Clock;
  tokens: TokenCounter;
  /** Assembles what the model sees this cycle (the context engine, closed over the session). */
  assemble(request: CycleContextRequest): Result<CycleContext, ContextFailure>;
  renderDocuments: ExecuteContext['renderDocuments'];
  /** Each step's reported usage next to our estimate: feeds token calibration. */
  onStepUsage?: (estimatedInputTokens: number, usage: Usage) => void;
}

export interface LoopInput {
  request: Omit<LlmRequest, 'messages' | 'tools'>;
  tools: Tool[];
  signal: AbortSignal;
  /** Documents already numbered in the context before any tool ran (inline project files). */
  documents?: Citation[];
}

export interface LoopOutcome {
  stopReason: StopReason;
  error?: { code: string; message: string };
}

/**
 * One cycle's request: the turn's settings with this cycle's messages and tools, the answer
 * length lowered to what the prompt leaves of the window, and the cache breakpoints.
 */
function fitRequest(
  request: LoopInput['request'],
  context: CycleContext,
  tools: ToolDefinition[],
): LlmRequest {
  const wanted = request.maxOutputTokens;
  const room = context.outputTokenRoom;
  const maxOutputTokens =
    room === undefined ? wanted : wanted === undefined ? room : Math.min(wanted, room);
  return {
    ...request,
    messages: context.messages,
    tools,
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    ...(context.cacheBreakpoints === undefined ? {} : { cacheBreakpoints: context.cacheBreakpoints }),
  };
}

/**
 * The logic of one turn: each cycle assembles the context, runs one
 * step, executes the tool calls it returned and appends calls and results. The loop ends when a
 * step makes no tool call, after MAX_LLM_CYCLES, on error, or when the signal aborts.
 */
export async function runLlmLoop(
  input: LoopInput,
  deps: LoopDeps,
  emitter: Emitter,
  state: StateContainer,
): Promise<LoopOutcome> {
  const turnSteps: AssistantStep[] = [];
  const toolsByName = new Map(input.tools.map((tool) => [tool.name, tool]));
  const definitions = input.tools.map(toToolDefinition);
  let hasSearchRun = false;
  let turnIndex = 0;
  let nextDocumentNumber = 1;
  // Every document the model may cite in this turn, by number; tool results add to it.
  const citable = new Map((input.documents ?? []).map((doc) => [doc.number, doc]));
  const citations = new CitationProcessor((number) => citable.get(number));

  for (let cycle = 0; cycle < MAX_LLM_CYCLES; cycle++) {
    if (input.signal.aborted) return { stopReason: 'user_cancelled' };
    const isLastCycle = cycle === MAX_LLM_CYCLES - 1;
    const tools = isLastCycle ? [] : definitions;
    const context = deps.assemble({ turnSteps, tools, hasSearchRun, isLastCycle });
    if (!context.ok) {
      emitter.emit({ type: 'error', code: context.error.code, message: context.error.message }, { turnIndex });
      return { stopReason: 'error', error: context.error };
    }

    // Inline project files take the first numbers; this turn's tool documents follow them.
    nextDocumentNumber = Math.max(nextDocumentNumber, context.value.nextDocumentNumber);
    const step = await runLlmStep(
      fitRequest(input.request, context.value, tools),
      input.signal,
      deps,
      emitter,
      state,
      turnIndex,
      citations,
    );
    turnIndex = step.nextTurnIndex;
    const estimated = context.value.estimatedInputTokens;
    if (step.usage && estimated !== undefined) deps.onStepUsage?.(estimated, step.usage);
    const madeStep: AssistantStep = {
      text: step.text,
      textTokenCount: deps.tokens.count(step.text),
      toolCalls: [],
      ...(step.reasoning || step.reasoningState
        ? {
            reasoning: {
              text: step.reasoning,
              tokenCount: deps.tokens.count(step.reasoning),
              ...(step.reasoningState ? { providerState: step.reasoningState } : {}),
            },
          }
        : {}),
    };
    turnSteps.push(madeStep);

    if (input.signal.aborted) {
      recordCancelled(step.toolCalls, madeStep, state, emitter, step.toolBlockIndex, deps.tokens);
      return { stopReason: 'user_cancelled' };
    }
    if (step.error) {
      recordCancelled(step.toolCalls, madeStep, state, emitter, step.toolBlockIndex, deps.tokens);
      emitter.emit({ type: 'error', code: step.error.code, message: step.error.message }, { turnIndex });
      return { stopReason: 'error', error: toMessageError(step.error) };
    }
    if (step.finishReason === 'interrupted') {
      recordCancelled(step.toolCalls, madeStep, state, emitter, step.toolBlockIndex, deps.tokens);
      const error = { code: 'stream_error', message: 'The provider closed the stream before the answer was finished.' };
      emitter.emit({ type: 'error', ...error }, { turnIndex });
      return { stopReason: 'interrupted', error };
    }
    if (step.toolCalls.length === 0) {
      if (step.finishReason === 'length') return { stopReason: 'length' };
      if (step.finishReason === 'content-filter') return { stopReason: 'content_filter' };
      if (step.text.length === 0 && cycle > 0) {
        // An empty answer after tools: say so rather than leaving a blank message.
        const error = { code: 'empty_answer', message: 'The model returned no answer after using its tools.' };
        emitter.emit({ type: 'error', ...error }, { turnIndex });
        return { stopReason: 'error', error };
      }
      return { stopReason: 'completed' };
    }

    const executed = await executeToolCalls(step.toolCalls, toolsByName, {
      signal: input.signal,
      nextDocumentNumber,
      tokens: deps.tokens,
      emitter,
      state,
      turnIndex: step.toolBlockIndex,
      renderDocuments: deps.renderDocuments,
    });
    madeStep.toolCalls.push(...executed.calls);
    for (const call of executed.calls) {
      for (const doc of call.result?.documents ?? []) if (!citable.has(doc.number)) citable.set(doc.number, doc);
    }
    nextDocumentNumber = executed.nextDocumentNumber;
    hasSearchRun ||= executed.hasSearchRun;
    if (input.signal.aborted) return { stopReason: 'user_cancelled' };
  }
  // Said out loud: otherwise a runaway tool loop ends looking like a finished, empty answer.
  const error = {
    code: 'max_cycles',
    message: `Stopped after ${MAX_LLM_CYCLES} rounds of tool use without a final answer. Ask again, or narrow the question.`,
  };
  emitter.emit({ type: 'error', ...error }, { turnIndex });
  return { stopReason: 'max_cycles', error };
}

/** Tool calls that never got a result are recorded as cancelled: history holds no orphan. */
function recordCancelled(
  calls: StepToolCall[],
  step: AssistantStep,
  state: StateContainer,
  emitter: Emitter,
  turnIndex: number,
  tokens: TokenCounter,
): void {
  calls.forEach((call, tabIndex) => {
    const result: ToolResult = {
      content: 'The tool call was cancelled before it ran.',
      tokenCount: 0,
      isError: true,
    };
    result.tokenCount = tokens.count(result.content);
    const record: ToolCall = {
      id: call.id,
      name: call.name,
      argumentsText: call.argumentsText,
      argumentsTokenCount: tokens.count(call.argumentsText),
      status: 'cancelled',
      ...(call.providerState ? { providerState: call.providerState } : {}),
      result,
    };
    step.toolCalls.push(record);
    state.addToolCall(record);
    emitter.emit({ type: 'tool_result', toolCallId: call.id, status: 'cancelled', result }, { turnIndex, tabIndex });
  });
}

function toMessageError(error: LlmError): { code: string; message: string } {
  return { code: error.code, message: error.message };
}
