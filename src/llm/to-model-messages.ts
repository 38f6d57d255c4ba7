import type {
  AssistantModelMessage,
  JSONValue,
  ModelMessage,
  SystemModelMessage,
  UserModelMessage,
} from 'ai';
import type { LlmImagePart, LlmMessage, LlmTextPart } from '../core/model';

type AssistantPart = Exclude<AssistantModelMessage['content'], string>[number];
type ProviderOptions = NonNullable<
  Extract<AssistantPart, { type: 'reasoning' }>['providerOptions']
>;
type UserPart = Exclude<UserModelMessage['content'], string>[number];

function isJsonValue(value: unknown): value is JSONValue {
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return true;
  if (Array.isArray(value)) return value.every(isJsonValue);
  if (typeof value === 'object') return Object.values(value).every(isJsonValue);
  return false;
}

/**
 * Opaque reasoning state is stored exactly as the provider's metadata came in, keyed by provider
 * (`{ anthropic: { signature } }`, `{ openai: { itemId, reasoningEncryptedContent } }`), which is
 * also the shape the AI SDK expects back as provider options. Anything else is dropped.
 */
export function toProviderOptions(
  state: Record<string, unknown> | undefined,
): ProviderOptions | undefined {
  if (state === undefined) return undefined;
  const options: ProviderOptions = {};
  for (const [provider, value] of Object.entries(state)) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
    const entries = Object.entries(value).filter((entry): entry is [string, JSONValue] =>
      isJsonValue(entry[1]),
    );
    options[provider] = Object.fromEntries(entries);
  }
  return Object.keys(options).length > 0 ? options : undefined;
}

/** Data URLs and https URLs both become URL objects; the AI SDK inlines data URLs itself. */
function toImageSource(image: string): URL | string {
  try {
    return new URL(image);
  } catch {
    return image;
  }
}

/**
 * An image is a file part with an image media type; the bare `image` segment lets the SDK read
 * the exact subtype from the bytes when we were not told it.
 */
function toUserPart(part: LlmTextPart | LlmImagePart): UserPart {
  if (part.type === 'text') return { type: 'text', text: part.text };
  return { type: 'file', data: toImageSource(part.image), mediaType: part.mediaType ?? 'image' };
}

/** Maps the minimal LLM-facing messages onto the AI SDK's ModelMessage form. */
export function toModelMessages(messages: LlmMessage[]): ModelMessage[] {
  return messages.map((message): ModelMessage => {
    switch (message.role) {
      case 'system':
        return { role: 'system', content: message.content };
      case 'user':
        return {
          role: 'user',
          content:
            typeof message.content === 'string' ? message.content : message.content.map(toUserPart),
        };
      case 'assistant':
        return {
          role: 'assistant',
          content: message.content.map((part): AssistantPart => {
            switch (part.type) {
              case 'text':
                return { type: 'text', text: part.text };
              case 'reasoning': {
                const providerOptions = toProviderOptions(part.providerState);
                return providerOptions === undefined
                  ? { type: 'reasoning', text: part.text }
                  : { type: 'reasoning', text: part.text, providerOptions };
              }
              case 'tool-call': {
                // Gemini rejects a follow-up whose function call lost its thought signature.
                const providerOptions = toProviderOptions(part.providerState);
                return {
                  type: 'tool-call',
                  toolCallId: part.toolCallId,
                  toolName: part.toolName,
                  input: part.input,
                  ...(providerOptions === undefined ? {} : { providerOptions }),
                };
              }
            }
          }),
        };
      case 'tool':
        return {
          role: 'tool',
          content: message.content.map((part) => ({
            type: 'tool-result' as const,
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            output:
              part.isError === true
                ? { type: 'error-text' as const, value: part.output }
                : { type: 'text' as const, value: part.output },
          })),
        };
    }
  });
}

/** The AI SDK's prompt: the leading instructions in `instructions`, the rest in `messages`. */
export interface ModelPrompt {
  instructions: SystemModelMessage[] | undefined;
  messages: ModelMessage[];
}

/**
 * Splits the leading system messages off into the SDK's `instructions` field, where it expects
 * them. A system message later in the conversation keeps its place: moving it would change what
 * the model reads (the request builder opts into that with `allowSystemInMessages`).
 */
export function toModelPrompt(messages: LlmMessage[]): ModelPrompt {
  const system: SystemModelMessage[] = [];
  let index = 0;
  for (; index < messages.length; index += 1) {
    const message = messages[index];
    if (message?.role !== 'system') break;
    system.push({ role: 'system', content: message.content });
  }
  return {
    instructions: system.length > 0 ? system : undefined,
    messages: toModelMessages(messages.slice(index)),
  };
}
