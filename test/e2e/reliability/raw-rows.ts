import type { Page } from '@playwright/test';

/** What these suites check of a stored message: its role, status and visible text. */
export interface RawMessage {
  role: string;
  status: string;
  text: string;
}

export interface RawFile {
  name: string;
  status: string;
}

export interface RawRows {
  messages: RawMessage[];
  files: RawFile[];
}

/**
 * The `messages` and `files` rows straight from IndexedDB (raw browser API, no app code). An
 * answer's text is taken from its steps, joined as the app shows them, so the reading does not
 * depend on which derived columns a schema version keeps.
 */
export function readRawRows(page: Page): Promise<RawRows> {
  return page.evaluate(
    () =>
      new Promise<RawRows>((resolve, reject) => {
        interface Row {
          role: string;
          status: string;
          text?: string;
          steps?: { text: string }[];
          name: string;
        }
        const open = indexedDB.open('carrel');
        open.onerror = () => reject(open.error ?? new Error('could not open the database'));
        open.onsuccess = () => {
          const db = open.result;
          const transaction = db.transaction(['messages', 'files']);
          const messages = transaction.objectStore('messages').getAll();
          const files = transaction.objectStore('files').getAll();
          transaction.onerror = () => reject(transaction.error ?? new Error('could not read the rows'));
          transaction.oncomplete = () => {
            db.close();
            resolve({
              messages: (messages.result as Row[]).map((row) => ({
                role: row.role,
                status: row.status,
                text:
                  row.role === 'assistant'
                    ? (row.steps ?? [])
                        .map((step) => step.text)
                        .filter((text) => text.length > 0)
                        .join('\n\n')
                    : (row.text ?? ''),
              })),
              files: (files.result as Row[]).map((row) => ({ name: row.name, status: row.status })),
            });
          };
        };
      }),
  );
}
