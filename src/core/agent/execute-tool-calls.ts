import type { ToolCall, ToolResult } from '../model';
import type { TokenCounter } from '../ports';
import type { Emitter } from './emitter';
import type { StepToolCall } from './run-llm-step';
import type { StateContainer } from './state-container';
import { collectCitedUrls, numberDocuments } from './tools/number-documents';
import type { Tool, ToolContext, ToolDocument, ToolOutput } from './tools/tool';

export interface ExecuteContext {
  signal: AbortSignal;
  nextDocumentNumber: number;
  tokens: TokenCounter;
  emitter: Emitter;
  state: StateContainer;
  turnIndex: number;
  /** The context engine's documents renderer, so tool results and project files look alike. */
  renderDocuments(documents: Array<ToolDocument & { number: number }>): string;
}

export interface Executed {
  calls: ToolCall[];
  nextDocumentNumber: number;
  hasSearchRun: boolean;
}

/**
 * Runs the calls of one step in parallel. Malformed arguments, unknown tools and tool failures
 * become results the model can read; an abort marks the unfinished calls as cancelled.
 */
export async function executeToolCalls(
  calls: StepToolCall[],
  toolsByName: ReadonlyMap<string, Tool>,
  context: ExecuteContext,
): Promise<Executed> {
  // Numbers are reserved per call in call order, so parallel searches never share a number.
  let nextNumber = context.nextDocumentNumber;
  // A URL already cited in this turn keeps its number.
  const citedUrls = collectCitedUrls(context.state.steps);
  let hasSearchRun = false;
  const records: ToolCall[] = calls.map((call) => ({
    id: call.id,
    name: call.name,
    argumentsText: call.argumentsText,
    argumentsTokenCount: context.tokens.count(call.argumentsText),
    status: 'pending',
    ...(call.providerState ? { providerState: call.providerState } : {}),
  }));
  records.forEach((record) => context.state.addToolCall(record));

  const outputs = await Promise.all(
    calls.map(async (call, tabIndex) => {
      const tool = toolsByName.get(call.name);
      if (tool?.isSearch) hasSearchRun = true;
      const output = await runOne(call, tool, { signal: context.signal });
      return { call, tabIndex, output };
    }),
  );

  for (const { call, tabIndex, output } of outputs) {
    const record = records[tabIndex] as ToolCall;
    const { result, nextNumber: afterResult } = toToolResult(output.output, nextNumber, context, citedUrls);
    nextNumber = afterResult;
    record.status = output.status;
    record.result = result;
    context.state.setToolResult(call.id, output.status, result);
    context.emitter.emit(
      { type: 'tool_result', toolCallId: call.id, status: output.status, result },
      { turnIndex: context.turnIndex, tabIndex },
    );
  }
  return { calls: records, nextDocumentNumber: nextNumber, hasSearchRun };
}

type RunOutput = { status: 'complete' | 'error' | 'cancelled'; output: ToolOutput };

async function runOne(
  call: StepToolCall,
  tool: Tool | undefined,
  toolContext: ToolContext,
): Promise<RunOutput> {
  if (!tool) {
    return errorOutput(`There is no tool named "${call.name}". Use only the tools offered to you.`);
  }
  let parsedJson: unknown;
  try {
    parsedJson = call.argumentsText.trim() === '' ? {} : JSON.parse(call.argumentsText);
  } catch {
    return errorOutput(`The arguments for ${call.name} were not valid JSON: ${truncate(call.argumentsText)}`);
  }
  const parsed = tool.inputSchema.safeParse(parsedJson);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
      .join('; ');
    return errorOutput(`Invalid arguments for ${call.name}: ${issues}`);
  }
  if (toolContext.signal.aborted) return cancelledOutput();
  try {
    const output = await tool.execute(parsed.data, toolContext);
    return { status: output.kind === 'text' && output.isError ? 'error' : 'complete', output };
  } catch (error) {
    if (toolContext.signal.aborted) return cancelledOutput();
    const message = error instanceof Error ? error.message : String(error);
    return errorOutput(`Tool ${call.name} failed: ${message}`);
  }
}

function errorOutput(content: string): RunOutput {
  return { status: 'error', output: { kind: 'text', content, isError: true } };
}

function cancelledOutput(): RunOutput {
  return {
    status: 'cancelled',
    output: { kind: 'text', content: 'The tool call was cancelled by the user.', isError: true },
  };
}

/** Numbers documents from `firstNumber` and renders them as the documents JSON (rule 5). */
function toToolResult(
  output: ToolOutput,
  firstNumber: number,
  context: ExecuteContext,
  citedUrls: Map<string, number>,
): { result: ToolResult; nextNumber: number } {
  if (output.kind === 'text') {
    const result = { content: output.content, isError: output.isError, tokenCount: context.tokens.count(output.content) };
    return { result, nextNumber: firstNumber };
  }
  const notes = output.notes && output.notes.length > 0 ? `\n\n${output.notes.join('\n')}` : '';
  if (output.documents.length === 0) {
    const content = `${output.emptyNotice}${notes}`;
    return { result: { content, isError: false, tokenCount: context.tokens.count(content) }, nextNumber: firstNumber };
  }
  const { numbered, nextNumber } = numberDocuments(output.documents, firstNumber, citedUrls);
  const content = `${context.renderDocuments(numbered)}${notes}`;
  const result: ToolResult = {
    content,
    isError: false,
    tokenCount: context.tokens.count(content),
    documents: numbered.map(({ number, title, fileId, url, location, chat }) => ({
      number,
      title,
      ...(fileId ? { fileId } : {}),
      ...(url ? { url } : {}),
      ...(location ? { location } : {}),
      ...(chat ? { chat: { sessionId: chat.sessionId, messageId: chat.messageId } } : {}),
    })),
  };
  return { result, nextNumber };
}

function truncate(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
