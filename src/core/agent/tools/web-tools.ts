import { z } from 'zod';
import type { ChatMessageSimple } from '../../model';
import type { ConfirmationPort, HttpFetcher, ReadableTextExtractor } from '../../ports';
import {
  createCharacterBudget,
  createOpenUrlTool,
  DEFAULT_TURN_CHARACTER_BUDGET,
  readerSettingsSchema,
} from './open-url.tool';
import { createSearchBackend, searchBackendConfigSchema } from './search-backends';
import type { Tool } from './tool';
import { indexConversation } from './url-policy';
import { createWebSearchTool } from './web-search.tool';

/** The settings key under which the web tools' settings are stored. */
export const WEB_TOOL_SETTINGS_KEY = 'webTools';

export const webToolSettingsSchema = z.object({
  /** The user's master switch for web_search and open_url. */
  isEnabled: z.boolean().default(true),
  /** null: no search service configured, so web_search is not offered. */
  search: searchBackendConfigSchema.nullable().default(null),
  reader: readerSettingsSchema.nullable().default(null),
  /** Lets open_url reach private, loopback and link-local addresses (self-hosted pages). */
  shouldAllowPrivateNetwork: z.boolean().default(false),
  turnCharacterBudget: z.number().int().positive().default(DEFAULT_TURN_CHARACTER_BUDGET),
});
export type WebToolSettings = z.infer<typeof webToolSettingsSchema>;

export interface WebToolsDeps {
  http: HttpFetcher;
  extractor: ReadableTextExtractor;
  confirmation: ConfirmationPort;
  settings: WebToolSettings;
  /** The chain the turn answers (collectConversationTexts), for the exfiltration guard (conversation text in an address). */
  conversationTexts: readonly string[];
}

/**
 * web_search (when a search service is configured) and open_url, sharing one turn's memory:
 * the URLs searches returned and the reading budget. Call it once per turn and model, e.g. in
 * turn assembly's prepareContext, so the budget starts afresh each turn.
 */
export function createWebTools(deps: WebToolsDeps): Tool[] {
  if (!deps.settings.isEnabled) return [];
  const searchedUrls = new Set<string>();
  const tools: Tool[] = [];
  if (deps.settings.search) {
    tools.push(
      createWebSearchTool({
        backend: createSearchBackend(deps.settings.search, deps.http),
        searchedUrls,
      }),
    );
  }
  tools.push(
    createOpenUrlTool({
      http: deps.http,
      extractor: deps.extractor,
      confirmation: deps.confirmation,
      policy: { shouldAllowPrivateNetwork: deps.settings.shouldAllowPrivateNetwork },
      reader: deps.settings.reader,
      budget: createCharacterBudget(deps.settings.turnCharacterBudget),
      conversation: indexConversation(deps.conversationTexts),
      searchedUrls,
    }),
  );
  return tools;
}

/** Everything said in the chain: messages, attached text and tool results. */
export function collectConversationTexts(chain: readonly ChatMessageSimple[]): string[] {
  return chain.flatMap((message) =>
    message.role === 'user'
      ? [
          message.text,
          ...message.attachments.flatMap((attachment) =>
            attachment.text ? [attachment.text] : [],
          ),
        ]
      : message.steps.flatMap((step) => [
          step.text,
          ...step.toolCalls.flatMap((call) => (call.result ? [call.result.content] : [])),
        ]),
  );
}
