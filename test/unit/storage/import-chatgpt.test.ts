import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { asMessageId, asSessionId } from '../../../src/core/model';
import { importChatGptExport } from '../../../src/storage/backup/import-chatgpt';
import { createMessageStore } from '../../../src/storage/message.store';
import { createSessionStore } from '../../../src/storage/session.store';
import { createFrozenClock, openTestDb } from './storage-fixtures';

const exportText = readFileSync(
  new URL('../../fixtures/db/chatgpt-conversations.json', import.meta.url),
  'utf8',
);
/** One token per word is enough to see counts flow through. */
const countWords = (text: string): number => text.split(/\s+/).filter(Boolean).length;
const deps = {
  clock: createFrozenClock(42_000),
  countTokens: (texts: string[]) => Promise.resolve(texts.map(countWords)),
};

describe('ChatGPT import', () => {
  it('turns each conversation into a session that keeps every branch', async () => {
    const db = await openTestDb();
    const report = await importChatGptExport(db, exportText, deps);
    const sessions = createSessionStore(db, deps.clock);
    const messages = createMessageStore(db, deps.clock);
    const sessionId = asSessionId('chatgpt-conv-1');
    const id = (node: string) => asMessageId(`chatgpt-conv-1-${node}`);

    expect(report).toEqual({ sessions: 2, messages: 7, skippedNodes: 3 });
    expect(await sessions.get(sessionId)).toMatchObject({
      title: 'Sourdough help',
      createdAt: 1_700_000_000_500,
      updatedAt: 1_700_000_900_250,
      currentLeafId: id('a2b'),
    });
    expect((await messages.loadVisibleChain(sessionId)).map((m) => m.id)).toEqual([
      id('u1'),
      id('a1'),
      id('u2b'),
      id('a2b'),
    ]);
    expect(await messages.siblings(id('u2b'))).toEqual({
      index: 1,
      count: 2,
      ids: [id('u2'), id('u2b')],
    });
  });

  it('skips system and tool nodes and hangs their children on the nearest kept ancestor', async () => {
    const db = await openTestDb();
    await importChatGptExport(db, exportText, deps);
    const messages = createMessageStore(db, deps.clock);
    expect(await messages.get(asMessageId('chatgpt-conv-1-u1'))).toMatchObject({
      parentId: null,
      text: 'My starter smells like acetone. Is it dead?',
      textTokenCount: 8,
    });
    expect(await messages.get(asMessageId('chatgpt-conv-1-a2'))).toMatchObject({
      parentId: 'chatgpt-conv-1-u2',
      role: 'assistant',
    });
    expect(await messages.get(asMessageId('chatgpt-conv-1-tool'))).toBeUndefined();
    expect(await messages.get(asMessageId('chatgpt-conv-1-u2b'))).toMatchObject({
      text: 'What about rye flour?',
    });
  });

  it('names untitled conversations and falls back to the import time for missing times', async () => {
    const db = await openTestDb();
    await importChatGptExport(db, exportText, deps);
    expect(
      await createSessionStore(db, deps.clock).get(asSessionId('chatgpt-conv-2')),
    ).toMatchObject({
      title: 'Imported chat',
      currentLeafId: 'chatgpt-conv-2-only',
      updatedAt: 1_700_001_000_000,
    });
    expect(
      await createMessageStore(db, deps.clock).get(asMessageId('chatgpt-conv-2-only')),
    ).toMatchObject({ createdAt: 1_700_001_000_000 });
  });

  it('merges a second import of the same export instead of duplicating it', async () => {
    const db = await openTestDb();
    await importChatGptExport(db, exportText, deps);
    await importChatGptExport(db, exportText, deps);
    expect(await db.sessions.count()).toBe(2);
    expect(await db.messages.count()).toBe(7);
  });

  it('rejects a file that is not a ChatGPT export and writes nothing', async () => {
    const db = await openTestDb();
    await expect(
      importChatGptExport(db, '[{"title":"x","mapping":[1]}]', deps),
    ).rejects.toMatchObject({
      code: 'invalid_data',
      message: expect.stringContaining('"0.mapping"') as unknown,
    });
    await expect(importChatGptExport(db, exportText.slice(0, 300), deps)).rejects.toMatchObject({
      code: 'invalid_data',
    });
    expect(await db.sessions.count()).toBe(0);
  });

  it('refuses an export whose parent links form a cycle, and writes nothing', async () => {
    const db = await openTestDb();
    const node = (id: string, parent: string, role: string) => ({
      id,
      parent,
      children: [],
      message: { author: { role }, content: { content_type: 'text', parts: [`text of ${id}`] } },
    });
    const cyclic = JSON.stringify([
      {
        conversation_id: 'loop',
        title: 'Loop',
        mapping: { a: node('a', 'b', 'user'), b: node('b', 'a', 'assistant') },
        current_node: 'b',
      },
    ]);

    await expect(importChatGptExport(db, cyclic, deps)).rejects.toMatchObject({
      code: 'invalid_data',
      message: expect.stringMatching(
        /"chatgpt-loop-[ab]" → "chatgpt-loop-[ab]" form a cycle/,
      ) as unknown,
    });
    expect(await db.sessions.count()).toBe(0);
    expect(await db.messages.count()).toBe(0);
  });
});
