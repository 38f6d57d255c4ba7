import type { Clock, LlmClient, LlmRequest } from '../ports';
import type { FinishReason, LlmError, Usage } from '../model';
import { assertNever } from '../../util/exhaustive';
import type { CitationOutput, CitationProcessor } from '../citations/citation-processor';
import type { Emitter } from './emitter';
import type { StateContainer } from './state-container';

export interface StepToolCall {
  id: string;
  name: string;
  argumentsText: string;
  providerState?: Record<string, unknown>;
}

export interface StepOutcome {
  /** What the provider reported for this inference, for cost records and token calibration. */
  usage: Usage | undefined;
  text: string;
  reasoning: string;
  reasoningState: Record<string, unknown> | undefined;
  toolCalls: StepToolCall[];
  finishReason: FinishReason;
  error: LlmError | undefined;
}

export interface StepDeps {
  llm: LlmClient;
  clock: Clock;
}

type Section = 'none' | 'reasoning' | 'text' | 'tool';

/**
 * One inference: streams provider events into packets as they arrive,
 * tracks the interleaved sections (reasoning, text, tool calls) and returns the tool calls for
 * the loop to execute. `turnIndex` is the first UI block this step may use; the step reports how
 * many blocks it used through the returned `nextTurnIndex`.
 */
export async function runLlmStep(
  request: LlmRequest,
  signal: AbortSignal,
  deps: StepDeps,
  emitter: Emitter,
  state: StateContainer,
  turnIndex: number,
  citations: CitationProcessor,
): Promise<StepOutcome & { nextTurnIndex: number; toolBlockIndex: number }> {
  const outcome: StepOutcome = {
    usage: undefined,
    text: '',
    reasoning: '',
    reasoningState: undefined,
    toolCalls: [],
    finishReason: 'interrupted',
    error: undefined,
  };
  const pending = new Map<string, { name: string; argumentsText: string; tabIndex: number }>();
  let block = turnIndex;
  let section = 'none' as Section;
  let toolTab = 0;
  let toolBlock = turnIndex;

  const enter = (next: Section): void => {
    if (section === next) return;
    if (section !== 'none') {
      emitter.emit({ type: 'section_end' }, { turnIndex: block });
      block++;
    }
    section = next;
    if (next === 'reasoning') emitter.emit({ type: 'reasoning_start' }, { turnIndex: block });
    if (next === 'tool') {
      toolTab = 0;
      toolBlock = block;
    }
  };

  /** Answer text passes through the citation processor: `[n]` normalised, citations emitted. */
  const emitText = (outputs: CitationOutput[]): void => {
    for (const output of outputs) {
      if (output.type === 'citation') {
        state.addCitation(output.citation);
        emitter.emit({ type: 'citation', citation: output.citation }, { turnIndex: block });
        continue;
      }
      outcome.text += output.text;
      state.appendText(output.text);
      emitter.emit({ type: 'message_delta', text: output.text }, { turnIndex: block });
    }
  };

  state.startStep();
  for await (const event of deps.llm.stream(request, signal)) {
    if (event.type !== 'text-delta' && section === 'text') emitText(citations.flush());
    switch (event.type) {
      case 'text-delta':
        if (event.text.length === 0) break;
        enter('text');
        emitText(citations.push(event.text));
        break;
      case 'reasoning-delta':
        if (event.text.length === 0) break;
        enter('reasoning');
        outcome.reasoning += event.text;
        state.appendReasoning(event.text, deps.clock.now());
        emitter.emit({ type: 'reasoning_delta', text: event.text }, { turnIndex: block });
        break;
      case 'reasoning-end':
        outcome.reasoningState = event.providerState;
        state.setReasoningState(event.providerState);
        break;
      case 'tool-call-start': {
        enter('tool');
        const tabIndex = toolTab++;
        pending.set(event.id, { name: event.name, argumentsText: '', tabIndex });
        emitter.emit(
          { type: 'tool_call_start', toolCallId: event.id, name: event.name },
          { turnIndex: block, tabIndex },
        );
        break;
      }
      case 'tool-call-delta': {
        const call = pending.get(event.id);
        if (!call) break;
        call.argumentsText += event.argumentsDelta;
        emitter.emit(
          { type: 'tool_call_delta', toolCallId: event.id, argumentsDelta: event.argumentsDelta },
          { turnIndex: block, tabIndex: call.tabIndex },
        );
        break;
      }
      case 'tool-call-end': {
        // Some providers send a whole call at once without a start event.
        if (!pending.has(event.id)) {
          enter('tool');
          const tabIndex = toolTab++;
          emitter.emit(
            { type: 'tool_call_start', toolCallId: event.id, name: event.name },
            { turnIndex: block, tabIndex },
          );
          emitter.emit(
            { type: 'tool_call_delta', toolCallId: event.id, argumentsDelta: event.argumentsText },
            { turnIndex: block, tabIndex },
          );
        }
        pending.delete(event.id);
        outcome.toolCalls.push({
          id: event.id,
          name: event.name,
          argumentsText: event.argumentsText,
          ...(event.providerState ? { providerState: event.providerState } : {}),
        });
        break;
      }
      case 'usage':
        outcome.usage = event.usage;
        state.addUsage(event.usage);
        break;
      case 'error':
        outcome.error = event.error;
        break;
      case 'finish':
        outcome.finishReason = event.reason;
        break;
      default:
        assertNever(event, 'stream event');
    }
  }
  if (section === 'text') emitText(citations.flush());
  if (section !== 'none') {
    emitter.emit({ type: 'section_end' }, { turnIndex: block });
    block++;
  }
  return { ...outcome, nextTurnIndex: block, toolBlockIndex: toolBlock };
}
