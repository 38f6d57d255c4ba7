import { z } from 'zod';
import type { ChatSource, FileId, ToolDefinition } from '../../model';

export interface ToolContext {
  signal: AbortSignal;
}

/** A document a tool found; the loop numbers it for citation and renders the documents JSON. */
export interface ToolDocument {
  title: string;
  metadata?: string;
  contents: string;
  fileId?: FileId;
  url?: string;
  /** Where in the file (page, character range), for the citation link. */
  location?: string;
  /** The message of a past chat this passage is from: its citation opens the chat there. */
  chat?: ChatSource;
}

/**
 * What a tool hands back: plain text, or documents. Documents are numbered by the loop after
 * the ones already cited in the turn, so parallel searches never share a number (rule 5).
 */
export type ToolOutput =
  | { kind: 'text'; content: string; isError: boolean }
  | {
      kind: 'documents';
      documents: ToolDocument[];
      emptyNotice: string;
      /** Lines the model reads after the documents JSON, e.g. URLs that could not be opened and why. */
      notes?: string[];
    };

/** A tool is a zod input schema plus a function, one file per tool. */
export interface Tool<Input = unknown> {
  name: string;
  description: string;
  /** When to use it, for the system prompt's tools section. */
  usage: string;
  /** Search tools trigger citation guidance and the citation reminder. */
  isSearch: boolean;
  inputSchema: z.ZodType<Input>;
  /**
   * The JSON Schema the model sees, when the tool comes with one (an MCP server's): sent as
   * declared rather than rebuilt from `inputSchema`, which then only checks the arguments.
   */
  inputJsonSchema?: Record<string, unknown>;
  execute(input: Input, context: ToolContext): Promise<ToolOutput>;
}

export function toToolDefinition(tool: Tool): ToolDefinition {
  const schema =
    tool.inputJsonSchema ?? z.toJSONSchema(tool.inputSchema, { target: 'draft-7', io: 'input' });
  const { $schema: _ignored, ...inputSchema } = schema;
  return { name: tool.name, description: tool.description, inputSchema };
}
