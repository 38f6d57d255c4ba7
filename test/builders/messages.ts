import {
  asAgentId,
  asFileId,
  asMessageId,
  asProjectId,
  asSessionId,
  type Agent,
  type AssistantMessage,
  type AssistantStep,
  type Attachment,
  type ChatMessageSimple,
  type ModelInfo,
  type Project,
  type ProjectFile,
  type ToolCall,
  type UserMessage,
} from '../../src/core/model';
import { renderNumberedDocuments } from '../../src/core/context/documents';
import { countStoredTokens } from './tokens';

/** Builders for the context engine's inputs; token counts are real (default tokenizer). */

const SESSION_ID = asSessionId('session-1');
const CREATED_AT = Date.parse('2026-11-20T09:00:00Z');

export interface UserSpec {
  id?: string;
  text: string;
  attachments?: Attachment[];
  isPinned?: boolean;
  isExcluded?: boolean;
}

export function buildUserMessage(spec: UserSpec): UserMessage {
  return {
    id: asMessageId(spec.id ?? 'u'),
    sessionId: SESSION_ID,
    parentId: null,
    createdAt: CREATED_AT,
    updatedAt: CREATED_AT,
    isPinned: spec.isPinned ?? false,
    isExcluded: spec.isExcluded ?? false,
    role: 'user',
    text: spec.text,
    textTokenCount: countStoredTokens(spec.text),
    attachments: spec.attachments ?? [],
  };
}

export interface ToolCallSpec {
  id?: string;
  name: string;
  arguments: unknown;
  status?: ToolCall['status'];
  /** The result the model reads; omitted for a call that never returned. */
  result?: string;
  isError?: boolean;
  /** Citation numbers this result introduced. */
  documents?: number[];
  /** A search result's documents in rank order: the result is their documents JSON. */
  sources?: Array<{ number: number; title: string; contents: string }>;
}

export function buildToolCall(spec: ToolCallSpec): ToolCall {
  if (spec.sources !== undefined) {
    const content = renderNumberedDocuments(spec.sources);
    const call = buildToolCall({ ...spec, sources: undefined, result: content });
    if (call.result)
      call.result.documents = spec.sources.map(({ number, title }) => ({ number, title }));
    return call;
  }
  const argumentsText = JSON.stringify(spec.arguments);
  return {
    id: spec.id ?? `call-${spec.name}`,
    name: spec.name,
    argumentsText,
    argumentsTokenCount: countStoredTokens(argumentsText),
    status: spec.status ?? (spec.result === undefined ? 'pending' : 'complete'),
    ...(spec.result !== undefined
      ? {
          result: {
            content: spec.result,
            tokenCount: countStoredTokens(spec.result),
            isError: spec.isError ?? false,
            ...(spec.documents
              ? {
                  documents: spec.documents.map((number) => ({
                    number,
                    title: `Document ${number}`,
                  })),
                }
              : {}),
          },
        }
      : {}),
  };
}

export interface StepSpec {
  text?: string;
  reasoning?: string;
  reasoningState?: Record<string, unknown>;
  toolCalls?: ToolCallSpec[];
}

export function buildStep(spec: StepSpec): AssistantStep {
  const text = spec.text ?? '';
  return {
    text,
    textTokenCount: countStoredTokens(text),
    toolCalls: (spec.toolCalls ?? []).map(buildToolCall),
    ...(spec.reasoning !== undefined
      ? {
          reasoning: {
            text: spec.reasoning,
            tokenCount: countStoredTokens(spec.reasoning),
            ...(spec.reasoningState ? { providerState: spec.reasoningState } : {}),
          },
        }
      : {}),
  };
}

export interface AssistantSpec {
  id?: string;
  steps: StepSpec[];
  isPinned?: boolean;
  isExcluded?: boolean;
  status?: AssistantMessage['status'];
}

export function buildAssistantMessage(spec: AssistantSpec): AssistantMessage {
  return {
    id: asMessageId(spec.id ?? 'a'),
    sessionId: SESSION_ID,
    parentId: null,
    createdAt: CREATED_AT,
    updatedAt: CREATED_AT,
    isPinned: spec.isPinned ?? false,
    isExcluded: spec.isExcluded ?? false,
    role: 'assistant',
    steps: spec.steps.map(buildStep),
    status: spec.status ?? 'complete',
    citations: [],
  };
}

/** Gives a chain sequential ids (m1, m2, …) and parent links, oldest first. */
export function buildChain(messages: ChatMessageSimple[]): ChatMessageSimple[] {
  return messages.map((message, index) => ({
    ...message,
    id: asMessageId(`m${index + 1}`),
    parentId: index === 0 ? null : asMessageId(`m${index}`),
  }));
}

export interface TextAttachmentSpec {
  name: string;
  text?: string;
  mimeType?: string;
  status?: Attachment['status'];
  /** Overrides the real count, to stand for a file too large to keep in a test. */
  tokenCount?: number;
  error?: string;
}

export function buildTextAttachment(spec: TextAttachmentSpec): Attachment {
  const text = spec.text ?? '';
  return {
    fileId: asFileId(`file-${spec.name}`),
    name: spec.name,
    mimeType: spec.mimeType ?? 'text/plain',
    kind: 'text',
    sizeBytes: text.length,
    tokenCount: spec.tokenCount ?? countStoredTokens(text),
    status: spec.status ?? 'ready',
    ...(spec.text !== undefined ? { text } : {}),
    ...(spec.error !== undefined ? { error: spec.error } : {}),
  };
}

export interface ImageAttachmentSpec {
  name: string;
  width: number;
  height: number;
  mimeType?: string;
  hasData?: boolean;
}

/** A tiny stand-in data URL: the context engine passes image bytes through untouched. */
export const SAMPLE_IMAGE_DATA_URL = 'data:image/png;base64,iVBORw0KGgo=';

export function buildImageAttachment(spec: ImageAttachmentSpec): Attachment {
  return {
    fileId: asFileId(`file-${spec.name}`),
    name: spec.name,
    mimeType: spec.mimeType ?? 'image/png',
    kind: 'image',
    sizeBytes: spec.width * spec.height,
    tokenCount: 0,
    status: 'ready',
    image: {
      width: spec.width,
      height: spec.height,
      ...(spec.hasData === false ? {} : { dataUrl: SAMPLE_IMAGE_DATA_URL }),
    },
  };
}

export function buildAgent(overrides: Partial<Agent> = {}): Agent {
  return {
    id: asAgentId('agent-default'),
    name: 'Assistant',
    prompt: '',
    shouldReplaceSystemPrompt: false,
    reminders: [],
    defaultModel: null,
    enabledTools: [],
    historyStrategy: { kind: 'auto' },
    isBuiltIn: true,
    createdAt: CREATED_AT,
    updatedAt: CREATED_AT,
    ...overrides,
  };
}

export function buildProject(overrides: Partial<Project> = {}): Project {
  return {
    id: asProjectId('project-1'),
    name: 'Project',
    instructions: '',
    defaultModel: null,
    defaultAgentId: null,
    createdAt: CREATED_AT,
    updatedAt: CREATED_AT,
    ...overrides,
  };
}

export interface ProjectFileSpec {
  name: string;
  text?: string;
  mimeType?: string;
  status?: ProjectFile['status'];
  tokenCount?: number;
  sizeBytes?: number;
}

export function buildProjectFile(spec: ProjectFileSpec): ProjectFile {
  const text = spec.text ?? '';
  return {
    id: asFileId(`project-file-${spec.name}`),
    name: spec.name,
    mimeType: spec.mimeType ?? 'text/markdown',
    sizeBytes: spec.sizeBytes ?? text.length,
    status: spec.status ?? 'ready',
    tokenCount: spec.tokenCount ?? countStoredTokens(text),
    ...(spec.text !== undefined ? { text } : {}),
  };
}

export function buildModelInfo(overrides: Partial<ModelInfo> = {}): ModelInfo {
  return {
    id: 'gpt-4o',
    contextWindow: 128_000,
    maxOutputTokens: 16_384,
    hasVision: true,
    hasTools: true,
    hasReasoning: false,
    encoding: 'o200k_base',
    isEstimate: false,
    ...overrides,
  };
}
