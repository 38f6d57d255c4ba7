/**
 * Import of ChatGPT's data export (`conversations.json`). Each conversation becomes a session
 * with every branch kept. System, tool and hidden nodes are skipped; their children hang from
 * the nearest kept ancestor. Ids are derived from ChatGPT's, so importing the same export twice
 * merges instead of duplicating.
 */
import { z } from 'zod';
import {
  asMessageId,
  asSessionId,
  chatMessageSimpleSchema,
  sessionSchema,
  type ChatMessageSimple,
  type MessageId,
  type Session,
} from '../../core/model';
import type { Clock } from '../../core/ports';
import type { CarrelDb } from '../db';
import { StorageError } from '../errors';
import { guardStorage } from '../guard';
import { describeCycle, findImportedParentCycle, placeImportedRows } from '../message-lines';
import { toMessageRow } from '../message-rows';
import { describeIssues } from '../parse-row';

const ID_PREFIX = 'chatgpt-';

const chatGptNodeSchema = z.object({
  id: z.string().min(1),
  parent: z.string().nullable().optional(),
  children: z.array(z.string()).optional(),
  message: z
    .object({
      author: z.object({ role: z.string() }),
      create_time: z.number().nullable().optional(),
      update_time: z.number().nullable().optional(),
      content: z
        .object({
          content_type: z.string(),
          parts: z.array(z.unknown()).optional(),
          text: z.string().optional(),
        })
        .optional(),
      metadata: z
        .object({ is_visually_hidden_from_conversation: z.boolean().optional() })
        .loose()
        .optional(),
    })
    .loose()
    .nullable()
    .optional(),
});

const chatGptConversationSchema = z
  .object({
    id: z.string().optional(),
    conversation_id: z.string().optional(),
    title: z.string().nullable().optional(),
    create_time: z.number().nullable().optional(),
    update_time: z.number().nullable().optional(),
    mapping: z.record(z.string(), chatGptNodeSchema),
    current_node: z.string().nullable().optional(),
  })
  .loose();

export const chatGptExportSchema = z.array(chatGptConversationSchema);
type ChatGptConversation = z.infer<typeof chatGptConversationSchema>;
type ChatGptNode = z.infer<typeof chatGptNodeSchema>;

export interface ChatGptImportReport {
  sessions: number;
  messages: number;
  skippedNodes: number;
}

export interface ChatGptImportDeps {
  clock: Clock;
  /**
   * Tokens of each text, in order, by the default encoding. Asynchronous: the app counts in
   * its agent worker, whose tokenizer then serves the page too.
   */
  countTokens: (texts: string[]) => Promise<number[]>;
}

/** The counts of every kept message's text, looked up while converting. */
type CountOf = (text: string) => number;

/** ChatGPT times are seconds (with fractions); ours are milliseconds. */
const toMs = (seconds: number | null | undefined, fallback: number) =>
  typeof seconds === 'number' ? Math.round(seconds * 1000) : fallback;

/** The text a person saw: string parts only (images and files are not in the export's JSON). */
function extractText(node: ChatGptNode): string {
  const content = node.message?.content;
  if (content === undefined) return '';
  const parts = (content.parts ?? []).filter((part): part is string => typeof part === 'string');
  return (parts.length > 0 ? parts.join('\n') : (content.text ?? '')).trim();
}

function isKept(node: ChatGptNode): boolean {
  const message = node.message;
  if (message === null || message === undefined) return false;
  if (message.author.role !== 'user' && message.author.role !== 'assistant') return false;
  if (message.metadata?.is_visually_hidden_from_conversation === true) return false;
  return extractText(node).length > 0;
}

function convertConversation(
  conversation: ChatGptConversation,
  index: number,
  deps: { clock: Clock; countOf: CountOf },
): { session: Session; messages: ChatMessageSimple[]; skipped: number } {
  const now = deps.clock.now();
  const sourceId = conversation.conversation_id ?? conversation.id ?? `index-${index}`;
  const sessionId = asSessionId(`${ID_PREFIX}${sourceId}`);
  const createdAt = toMs(conversation.create_time, now);
  const mapping = conversation.mapping;
  const toMessageIdOf = (nodeId: string): MessageId =>
    asMessageId(`${ID_PREFIX}${sourceId}-${nodeId}`);

  /** Nearest kept ancestor (or the node itself), walking parents with a guard against cycles. */
  const nearestKept = (nodeId: string | null | undefined): string | null => {
    const seen = new Set<string>();
    let current = nodeId ?? null;
    while (current !== null && !seen.has(current)) {
      seen.add(current);
      const node = mapping[current];
      if (node === undefined) return null;
      if (isKept(node)) return current;
      current = node.parent ?? null;
    }
    return null;
  };

  const messages: ChatMessageSimple[] = [];
  let skipped = 0;
  for (const [key, node] of Object.entries(mapping)) {
    const nodeId = node.id === '' ? key : node.id;
    if (!isKept(node) || node.message === null || node.message === undefined) {
      skipped += 1;
      continue;
    }
    const text = extractText(node);
    const parentKept = nearestKept(node.parent);
    const base = {
      id: toMessageIdOf(nodeId),
      sessionId,
      parentId: parentKept === null ? null : toMessageIdOf(parentKept),
      createdAt: toMs(node.message.create_time, createdAt),
      updatedAt: toMs(node.message.update_time ?? node.message.create_time, createdAt),
      isPinned: false,
      isExcluded: false,
    };
    const tokenCount = deps.countOf(text);
    messages.push(
      node.message.author.role === 'user'
        ? { ...base, role: 'user', text, textTokenCount: tokenCount, attachments: [] }
        : {
            ...base,
            role: 'assistant',
            steps: [{ text, textTokenCount: tokenCount, toolCalls: [] }],
            status: 'complete',
            citations: [],
          },
    );
  }

  const leaf = nearestKept(conversation.current_node);
  const session: Session = {
    id: sessionId,
    title: conversation.title ?? 'Imported chat',
    projectId: null,
    agentId: null,
    models: [],
    currentLeafId:
      leaf === null ? (messages[messages.length - 1]?.id ?? null) : toMessageIdOf(leaf),
    isPinned: false,
    isArchived: false,
    createdAt,
    updatedAt: toMs(conversation.update_time, createdAt),
    version: 0,
  };
  return { session, messages, skipped };
}

/** Counts every kept message's text in one call (each distinct text once). */
async function countKeptTexts(
  conversations: readonly ChatGptConversation[],
  countTokens: ChatGptImportDeps['countTokens'],
): Promise<CountOf> {
  const texts = [
    ...new Set(
      conversations.flatMap((conversation) =>
        Object.values(conversation.mapping).filter(isKept).map(extractText),
      ),
    ),
  ];
  const counts = await countTokens(texts);
  if (counts.length !== texts.length)
    throw new Error(`Token counting answered ${counts.length} counts for ${texts.length} texts.`);
  const byText = new Map(texts.map((text, index) => [text, counts[index] ?? 0]));
  return (text) => byText.get(text) ?? 0;
}

function invalidExport(message: string): StorageError {
  return new StorageError('invalid_data', `This ChatGPT export cannot be imported: ${message}`);
}

/** What the conversion made must pass the schemas every session and message is written with. */
function checkConverted(converted: readonly { session: Session; messages: ChatMessageSimple[] }[]) {
  const written = {
    sessions: converted.map((item) => item.session),
    messages: converted.flatMap((item) => item.messages),
  };
  const checked = z
    .object({ sessions: z.array(sessionSchema), messages: z.array(chatMessageSimpleSchema) })
    .safeParse(written);
  if (!checked.success) throw invalidExport(describeIssues(checked.error.issues, written));
}

/** Parses and validates the whole export, then writes it in one transaction. */
export async function importChatGptExport(
  db: CarrelDb,
  text: string,
  deps: ChatGptImportDeps,
): Promise<ChatGptImportReport> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new StorageError(
      'invalid_data',
      `This ChatGPT export is not complete JSON (${error instanceof Error ? error.message : String(error)}).`,
    );
  }
  const parsed = chatGptExportSchema.safeParse(json);
  if (!parsed.success) {
    throw new StorageError(
      'invalid_data',
      `This is not ChatGPT's conversations.json: ${describeIssues(parsed.error.issues, json)}`,
    );
  }
  const countOf = await countKeptTexts(parsed.data, deps.countTokens);
  const converted = parsed.data.map((conversation, index) =>
    convertConversation(conversation, index, { clock: deps.clock, countOf }),
  );
  checkConverted(converted);
  await guardStorage(db, () =>
    db.transaction('rw', [db.sessions, db.messages], async () => {
      const links = new Map<string, string | null>();
      for (const { messages } of converted)
        for (const message of messages) links.set(message.id, message.parentId);
      const cycle = await findImportedParentCycle(db, links);
      if (cycle !== undefined) throw invalidExport(describeCycle(cycle));
      for (const { session, messages } of converted) {
        const existing = await db.sessions.get(session.id);
        await db.sessions.put(
          existing === undefined ? session : { ...session, version: existing.version + 1 },
        );
        await db.messages.bulkPut(await placeImportedRows(db, messages.map(toMessageRow)));
      }
    }),
  );
  return {
    sessions: converted.length,
    messages: converted.reduce((total, item) => total + item.messages.length, 0),
    skippedNodes: converted.reduce((total, item) => total + item.skipped, 0),
  };
}
