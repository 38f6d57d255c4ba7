/**
 * Long sessions written straight into the app's IndexedDB (rows shaped as in src/storage/db.ts,
 * schema version 3: one line, `lineId` the first message's id and `depth` the index; answers keep
 * their text in their step only), the way a restored backup would leave them: no test hooks in
 * the app. Shared by the long-chat e2e spec and the streaming-UI bench.
 *
 *     await page.evaluate(seedSessionRows, { sessionId, title, texts: buildLongChatTexts(1000) });
 *
 * The app must have created its database first (open any screen, e.g. Settings).
 */

export interface SeedSessionInput {
  sessionId: string;
  title: string;
  /** One text per message, oldest first: questions at even indexes, answers at odd ones. */
  texts: readonly string[];
}

/** The question and answer texts of the long-chat spec: short, numbered, with a little Markdown. */
export function buildLongChatTexts(count: number): string[] {
  return Array.from({ length: count }, (_, index) =>
    index % 2 === 0
      ? `Question number ${String(index)}: what about item ${String(index)}?`
      : `Answer number ${String(index)}. Here is **some** detail about item ${String(index - 1)}.\n\n- one point\n- another point`,
  );
}

/**
 * Runs in the page (pass it to `page.evaluate`): raw IndexedDB, one transaction. Self-contained
 * on purpose, since Playwright serialises its source. Message ids are `<sessionId>-m<index>`.
 */
export async function seedSessionRows({
  sessionId,
  title,
  texts,
}: SeedSessionInput): Promise<void> {
  const request = indexedDB.open('carrel');
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('open failed'));
  });
  const start = Date.now() - texts.length * 1000;
  const tx = db.transaction(['sessions', 'messages'], 'readwrite');
  const messages = tx.objectStore('messages');
  let parentId = '';
  const lineId = `${sessionId}-m0`;
  texts.forEach((text, index) => {
    const id = `${sessionId}-m${String(index)}`;
    const tokenCount = Math.ceil(text.length / 4);
    const common = {
      id,
      sessionId,
      parentId,
      createdAt: start + index * 1000,
      updatedAt: start + index * 1000,
      isPinned: false,
      isExcluded: false,
      tokenCount,
      lineId,
      depth: index,
    };
    messages.put(
      index % 2 === 0
        ? {
            ...common,
            role: 'user',
            status: 'complete',
            text,
            textTokenCount: tokenCount,
            attachments: [],
          }
        : {
            ...common,
            role: 'assistant',
            status: 'complete',
            stopReason: 'completed',
            steps: [{ text, textTokenCount: tokenCount, toolCalls: [] }],
            citations: [],
          },
    );
    parentId = id;
  });
  tx.objectStore('sessions').put({
    id: sessionId,
    title,
    projectId: null,
    agentId: null,
    models: [],
    currentLeafId: parentId,
    isPinned: false,
    isArchived: false,
    createdAt: start,
    updatedAt: start + texts.length * 1000,
    version: 1,
  });
  await new Promise<void>((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error ?? new Error('write failed'));
  });
  db.close();
}
