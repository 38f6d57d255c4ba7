import type { ChatMessageSimple } from '../../model';
import type { ConfirmationPort, HttpFetcher, ReadableTextExtractor } from '../../ports';
import { createCharacterBudget, createOpenUrlTool } from './open-url.tool';
import { createSearchBackend } from './search-backends';
import type { Tool } from './tool';
import { indexConversation } from './url-policy';
import { createWebSearchTool } from './web-search.tool';
import type { WebToolSettings } from './web-tool-settings';

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
