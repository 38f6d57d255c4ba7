import type {
  AssistantModelMessage,
  JSONValue,
  ModelMessage,
  SystemModelMessage,
  UserModelMessage,
} from 'ai';
import type { LlmImagePart, LlmMessage, LlmTextPart } from '../core/model';
import type { LlmRequest } from '../core/ports';

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

/** Messages that end a stable prefix, and the provider option that asks to cache up to them. */
export interface CacheMarker {
  indexes: ReadonlySet<number>;
  providerOptions: ProviderOptions;
}

/**
 * Anthropic caches a prompt only up to a message marked `cache_control` (the SDK's
 * `cacheControl` option, put on the message's last part); OpenAI and Gemini cache stable
 * prefixes without being asked, so their requests carry no marker.
 */
export function selectCacheMarker(
  request: Pick<LlmRequest, 'provider' | 'cacheBreakpoints'>,
): CacheMarker | undefined {
  const breakpoints = request.cacheBreakpoints ?? [];
  if (request.provider.kind !== 'anthropic' || breakpoints.length === 0) return undefined;
  return {
    indexes: new Set(breakpoints),
    providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
  };
}

function mark<T extends ModelMessage>(message: T, index: number, marker: CacheMarker | undefined): T {
  return marker?.indexes.has(index) === true
    ? { ...message, providerOptions: marker.providerOptions }
    : message;
}

/**
 * Splits the leading system messages off into the SDK's `instructions` field, where it expects
 * them. A system message later in the conversation keeps its place: moving it would change what
 * the model reads (the request builder opts into that with `allowSystemInMessages`). Messages at
 * the marker's indexes carry its cache option.
 */
export function toModelPrompt(messages: LlmMessage[], marker?: CacheMarker): ModelPrompt {
  const system: SystemModelMessage[] = [];
  let index = 0;
  for (; index < messages.length; index += 1) {
    const message = messages[index];
    if (message?.role !== 'system') break;
    system.push(mark({ role: 'system', content: message.content }, index, marker));
  }
  const offset = index;
  return {
    instructions: system.length > 0 ? system : undefined,
    messages: toModelMessages(messages.slice(offset)).map((message, at) =>
      mark(message, offset + at, marker),
    ),
  };
}
