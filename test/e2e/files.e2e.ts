import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from './fixtures';
import { EmbeddingSettingsPage } from './pages/embedding-settings-page';
import { ProjectPage } from './pages/project-page';

const COFFEE = path.resolve('test/fixtures/documents/corpus/coffee.md');

/** A CSV without one blank line: a single block that takes the chunker many seconds. */
function buildLargeCsv(megabytes: number): Buffer {
  const rows: string[] = ['sku,name,quantity,warehouse'];
  let length = 0;
  for (let i = 0; length < megabytes * 1024 * 1024; i++) {
    const row = `A-${i},item ${(i * 7919) % 100_000},${i % 500},depot ${i % 23}`;
    rows.push(row);
    length += row.length + 1;
  }
  return Buffer.from(rows.join('\n'));
}

/** UTF-16 little-endian with its byte-order mark, as Windows Notepad saves "Unicode" text. */
function encodeUtf16Le(text: string): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
}

test.describe('project files', () => {
  test.beforeEach(async ({ seed, llm }) => {
    await seed.provider({
      name: 'Mock',
      baseUrl: `${llm.url}/v1`,
      apiKey: 'sk-files-e2e',
      model: 'gpt-4o-mini',
    }, { open: '/#/settings' });
  });

  test('files are read side by side, each with its own bar and Cancel, and odd files are named plainly', async ({
    page,
  }) => {
    await page.getByLabel('Allow downloading model files').uncheck();
    const project = new ProjectPage(page);
    await project.create('Odd files');
    // Chosen from disk, as a person picks them: the 16 MB file is not sent over the protocol. It
    // is large enough to be still in reading, on a fast machine too, when Cancel is clicked.
    const folder = test.info().outputPath('odd-files');
    await mkdir(folder, { recursive: true });
    const files: Array<[string, Buffer]> = [
      ['large.csv', buildLargeCsv(16)],
      ['coffee.md', readFileSync(COFFEE)],
      ['empty.txt', Buffer.alloc(0)],
      ['notepad.txt', encodeUtf16Le('Grüße aus Köln: the kettle is on.\r\n')],
      ['invoice\u202Efdp.txt', Buffer.from('Pay by Friday.')],
    ];
    await Promise.all(files.map(([name, bytes]) => writeFile(path.join(folder, name), bytes)));
    await page.getByLabel('Add files to the project').setInputFiles(files.map(([name]) => path.join(folder, name)));
    const row = (name: string) => project.uploads().filter({ hasText: name });

    // The small files are done while the large one, before them, is still being read.
    await expect(row('coffee.md')).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
    await expect(row('notepad.txt')).toHaveAttribute('data-status', 'done');
    await expect(row('large.csv')).toHaveAttribute('data-status', 'working');
    await expect(row('large.csv').getByRole('progressbar')).toBeVisible();
    await row('large.csv').getByRole('button', { name: 'Cancel large.csv' }).click();
    await expect(row('large.csv')).toHaveAttribute('data-status', 'cancelled');

    await expect(row('empty.txt')).toHaveAttribute('data-status', 'failed');
    await expect(row('empty.txt')).toContainText(
      '"empty.txt" is an empty file: there is nothing to add.',
    );
    // The override shows as an escape: the name cannot pass for a PDF.
    await expect(row('invoice[U+202E]fdp.txt')).toHaveAttribute('data-status', 'done');
    await expect(project.files()).toHaveText([
      /coffee\.md/,
      /notepad\.txt/,
      /invoice\[U\+202E\]fdp\.txt/,
    ]);
    await expect(project.files().filter({ hasText: 'notepad.txt' })).toContainText('tokens');
  });

  test('a folder of many files lists every file, and the upload list folds the oldest ready ones into one line', async ({
    page,
  }) => {
    await page.getByLabel('Allow downloading model files').uncheck();
    const project = new ProjectPage(page);
    await project.create('Many notes');
    const folder = test.info().outputPath('many-notes');
    await mkdir(folder, { recursive: true });
    const names = Array.from({ length: 26 }, (_, index) => `note-${String(index).padStart(2, '0')}.txt`);
    await Promise.all(
      names.map((name, index) => writeFile(path.join(folder, name), `Note ${index}: the kiln at bay ${index} fires at ${900 + index} degrees.`)),
    );
    await project.upload(names.map((name) => path.join(folder, name)));

    await expect(project.files().and(page.locator('[data-status="ready"]'))).toHaveCount(names.length, { timeout: 60_000 });
    await expect(project.uploads().and(page.locator('[data-status="working"]'))).toHaveCount(0, { timeout: 30_000 });
    // Twenty ready rows stay, the newest; the six before them are one line.
    await expect(page.getByTestId('uploads-folded')).toHaveText('6 more files ready');
    await expect(project.uploads()).toHaveCount(20);
    await expect(project.uploads().first()).toContainText('note-06.txt');
    await expect(project.uploads().last()).toContainText('note-25.txt');
    await expect(project.files().first()).toContainText('tokens');
  });

  test('an embedding download that cannot reach the network says what to do and links to the setting', async ({
    page,
  }) => {
    const embedding = new EmbeddingSettingsPage(page);
    // Nothing listens on port 9 of this machine: the fetch fails as it does offline.
    await embedding.useSelfHosted('http://127.0.0.1:9/models/');
    await embedding.downloadNow();
    await expect(embedding.status()).toContainText(
      'could not be downloaded: the network could not be reached',
      {
        timeout: 30_000,
      },
    );
    await expect(embedding.status()).toContainText(
      'Retry when you are online, or import the model folder from disk',
    );
    await expect(
      embedding.section().getByRole('button', { name: 'Retry the download' }),
    ).toBeVisible();

    const project = new ProjectPage(page);
    await project.create('Offline');
    await project.upload([COFFEE]);
    const note = page.getByTestId('embedding-note');
    await expect(note).toContainText('could not be downloaded', { timeout: 30_000 });
    await note.getByRole('link', { name: 'Open the embedding settings' }).click();
    await expect(page).toHaveURL(/#\/settings\/embeddings$/);
    await expect(page.getByRole('heading', { name: 'Embeddings' })).toBeInViewport();
  });
});
