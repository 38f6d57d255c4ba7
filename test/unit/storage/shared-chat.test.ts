/**
 * A chat shared as a web page reads without Carrel and imports back as a new chat, exactly as it
 * was; a file that is not one, or that was tampered with, is refused whole and writes nothing.
 */
import { describe, expect, it, vi } from 'vitest';
import { renderSharedChatPage } from '../../../src/app/lib/shared-chat-page';
import {
  asFileId,
  buildSharedChat,
  serializeSharedChat,
  type ChatMessageSimple,
} from '../../../src/core/model';
import { importSharedChat } from '../../../src/storage/backup/shared-chat';
import type { CarrelDb } from '../../../src/storage/db';
import { createMessageStore } from '../../../src/storage/message.store';
import { createSessionStore } from '../../../src/storage/session.store';
import {
  buildAssistantMessage,
  buildSession,
  buildUserMessage,
  createFrozenClock,
  createSequentialIds,
  openTestDb,
} from './storage-fixtures';

// No DOM in Node: the sanitizer passes markdown-it's HTML through (it runs in the browser).
vi.mock('dompurify', () => ({
  default: { sanitize: (html: string) => html, addHook: () => undefined },
}));

function newIds(prefix = 'id'): () => string {
  const ids = createSequentialIds(prefix);
  return () => ids.newId();
}

const HOSTILE = '</script><script>alert("x")</script><img src=x onerror=alert(1)>';

function buildChain(): ChatMessageSimple[] {
  return [
    buildUserMessage('m1', null, {
      text: `Compare these, please ${HOSTILE}\nsecond line`,
      attachments: [
        {
          fileId: asFileId('f1'),
          name: 'notes.md',
          mimeType: 'text/markdown',
          kind: 'text',
          sizeBytes: 12,
          tokenCount: 4,
          status: 'ready',
          text: 'the notes as they were sent',
        },
      ],
    }),
    buildAssistantMessage('m2', 'm1', {
      steps: [
        {
          text: `**Bold** claim [1] & a table\n\n| a | b |\n|---|---|\n| 1 | 2 |`,
          textTokenCount: 12,
          toolCalls: [],
        },
      ],
      citations: [{ number: 1, title: 'A source', url: 'https://example.org/page' }],
    }),
    buildUserMessage('m3', 'm2', { text: 'And then?' }),
    buildAssistantMessage('m4', 'm3', { status: 'stopped' }),
  ];
}

function buildPage(title = `Trip ${HOSTILE}`): string {
  const session = buildSession({ title, currentLeafId: buildChain()[3]!.id });
  return renderSharedChatPage(buildSharedChat(session, buildChain(), 1_700_000_000_000), 'UTC');
}

async function countRows(db: CarrelDb) {
  return { sessions: await db.sessions.count(), messages: await db.messages.count() };
}

describe('a chat shared as a web page', () => {
  it('shows the conversation without running or loading anything', () => {
    const page = buildPage();
    // The one script element is the data block, which browsers never run.
    expect(page.match(/<script/g)).toHaveLength(1);
    expect(page).toContain('<script type="application/json" id="carrel-shared-chat">');
    expect(page).not.toContain('<img');
    expect(page).toContain(
      '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'',
    );
    expect(page).toContain('&lt;/script&gt;&lt;script&gt;alert(&quot;x&quot;)');
    expect(page).toContain('<strong>Bold</strong>');
    expect(page).toContain('<a href="https://example.org/page">A source</a>');
    expect(page).toContain('📎 notes.md');
    expect(page).toContain('Stopped before the end.');
  });

  it('imports back as a new chat with every message as it was', async () => {
    const db = await openTestDb();
    const report = await importSharedChat(db, buildPage(), {
      clock: createFrozenClock(),
      newId: newIds('new'),
    });
    expect(report).toMatchObject({ title: `Trip ${HOSTILE}`, messages: 4 });

    const session = await createSessionStore(db, createFrozenClock()).get(report.sessionId);
    expect(session?.title).toBe(`Trip ${HOSTILE}`);
    const chain = await createMessageStore(db, createFrozenClock()).loadChain(
      session!.currentLeafId!,
    );
    const strip = ({
      id: _id,
      sessionId: _session,
      parentId: _parent,
      ...rest
    }: ChatMessageSimple) => rest;
    expect(chain.map(strip)).toEqual(buildChain().map(strip));
    expect(chain.every((message) => message.sessionId === report.sessionId)).toBe(true);
    expect(chain.map((message) => message.id)).not.toContain('m1');
  });

  it('imports the same file twice as two chats, never over what is stored', async () => {
    const db = await openTestDb();
    const deps = { clock: createFrozenClock(), newId: newIds('new') };
    const first = await importSharedChat(db, buildPage(), deps);
    const second = await importSharedChat(db, buildPage(), deps);
    expect(second.sessionId).not.toBe(first.sessionId);
    expect(await countRows(db)).toEqual({ sessions: 2, messages: 8 });
  });

  it('imports the JSON on its own too', async () => {
    const db = await openTestDb();
    const json = serializeSharedChat(buildSharedChat(buildSession(), buildChain(), 5));
    const report = await importSharedChat(db, json, {
      clock: createFrozenClock(),
      newId: newIds(),
    });
    expect(report.messages).toBe(4);
  });

  it.each([
    ['a web page that is not a shared chat', '<!doctype html><p>Hello</p>', /no chat data found/],
    [
      'a page whose data was cut short',
      buildPage().replace(/"messages":\[.*<\/script>/s, '"messages":[</script>'),
      /not complete JSON/,
    ],
    [
      'messages that do not follow each other',
      buildPage().replace('"parentId":"m2"', '"parentId":"m1"'),
      /message 3 does not follow/,
    ],
    [
      'a message that breaks the schema',
      buildPage().replace('"text":"And then?"', '"text":42'),
      /messages\.2\.text/,
    ],
    ['another format', '{"format":"something-else","version":1}', /format/],
  ])('refuses %s whole, writing nothing', async (_name, text, reason) => {
    const db = await openTestDb();
    const before = await countRows(db);
    await expect(
      importSharedChat(db, text, {
        clock: createFrozenClock(),
        newId: newIds(),
      }),
    ).rejects.toMatchObject({
      code: 'invalid_data',
      message: expect.stringMatching(reason) as unknown,
    });
    expect(await countRows(db)).toEqual(before);
  });
});
