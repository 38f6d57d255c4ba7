import type {
  AssistantStep,
  Citation,
  MessageError,
  StopReason,
  ToolCall,
  ToolResult,
  Usage,
} from '../model';

/**
 * Accumulates one model's answer while it streams: answer text, reasoning, tool calls
 * with their results, citations, usage and timing. Any layer may add to it; no logic reads it
 * until the top level saves the turn (and the checkpointer snapshots it).
 */
export class StateContainer {
  readonly steps: AssistantStep[] = [];
  readonly citations: Citation[] = [];
  usage: Usage | undefined;
  stopReason: StopReason | undefined;
  error: MessageError | undefined;
  /** Bumped on every change, so a checkpointer can tell whether there is anything to flush. */
  revision = 0;

  constructor(readonly startedAt: number) {}

  startStep(): void {
    this.steps.push({ text: '', textTokenCount: 0, toolCalls: [] });
    this.revision++;
  }

  private get step(): AssistantStep {
    if (this.steps.length === 0) this.startStep();
    return this.steps[this.steps.length - 1] as AssistantStep;
  }

  appendText(text: string): void {
    this.step.text += text;
    this.revision++;
  }

  appendReasoning(text: string, now: number): void {
    const step = this.step;
    step.reasoning ??= { text: '', tokenCount: 0, durationMs: 0 };
    step.reasoning.text += text;
    step.reasoning.durationMs = Math.max(0, now - this.startedAt);
    this.revision++;
  }

  setReasoningState(providerState: Record<string, unknown> | undefined): void {
    const step = this.step;
    step.reasoning ??= { text: '', tokenCount: 0 };
    if (providerState) step.reasoning.providerState = providerState;
    this.revision++;
  }

  addToolCall(call: ToolCall): void {
    this.step.toolCalls.push(call);
    this.revision++;
  }

  setToolResult(toolCallId: string, status: ToolCall['status'], result: ToolResult): void {
    for (const step of this.steps) {
      const call = step.toolCalls.find((c) => c.id === toolCallId);
      if (call) {
        call.status = status;
        call.result = result;
        this.revision++;
        return;
      }
    }
  }

  addCitation(citation: Citation): void {
    this.citations.push(citation);
    this.revision++;
  }

  addUsage(usage: Usage): void {
    const prev = this.usage;
    this.usage = prev
      ? {
          inputTokens: prev.inputTokens + usage.inputTokens,
          outputTokens: prev.outputTokens + usage.outputTokens,
          reasoningTokens: (prev.reasoningTokens ?? 0) + (usage.reasoningTokens ?? 0),
          cachedInputTokens: (prev.cachedInputTokens ?? 0) + (usage.cachedInputTokens ?? 0),
        }
      : { ...usage };
    this.revision++;
  }

  finish(stopReason: StopReason, error?: MessageError): void {
    this.stopReason = stopReason;
    if (error) this.error = error;
    this.revision++;
  }
}
