import { expect, type Locator, type Page } from '@playwright/test';

/** A project's page (files, fit or search, instructions) and the file viewer, as a person uses them. */
export class ProjectPage {
  constructor(readonly page: Page) {}

  /** Sidebar → New project: the new project's page opens. */
  async create(name: string): Promise<void> {
    await this.page.getByRole('button', { name: 'New project' }).click();
    await this.page.getByRole('heading', { name: 'New project', level: 1 }).waitFor();
    await this.rename(name);
  }

  async rename(name: string): Promise<void> {
    const field = this.settingsForm().getByLabel('Name');
    await field.fill(name);
    await field.press('Enter');
    await this.page.getByRole('heading', { name, level: 1 }).waitFor();
  }

  settingsForm(): Locator {
    return this.page.getByRole('form', { name: 'Project settings' });
  }

  async setInstructions(text: string): Promise<void> {
    await this.settingsForm().getByLabel('Instructions').fill(text);
    await this.settingsForm().getByRole('button', { name: 'Save instructions' }).click();
  }

  /** The option label is "<model> · <provider>". */
  async chooseModel(modelId: string, providerName: string): Promise<void> {
    await this.settingsForm().getByLabel('Default model').selectOption({ label: `${modelId} · ${providerName}` });
  }

  async upload(paths: string[]): Promise<void> {
    await this.page.getByLabel('Add files to the project').setInputFiles(paths);
  }

  uploads(): Locator {
    return this.page.getByTestId('upload-row');
  }

  files(): Locator {
    return this.page.getByTestId('project-file');
  }

  fit(): Locator {
    return this.page.getByTestId('project-fit');
  }

  fitMode(): Locator {
    return this.page.getByTestId('project-fit-mode');
  }

  searchMode(): Locator {
    return this.page.getByTestId('project-search-mode');
  }

  async startChat(): Promise<void> {
    await this.page.getByRole('button', { name: 'New chat in this project' }).click();
    await this.page.getByTestId('new-chat-project').waitFor();
  }

  async delete(): Promise<void> {
    await this.page.getByRole('button', { name: 'Delete project…' }).click();
    await this.page.getByTestId('delete-project-dialog').getByRole('button', { name: 'Delete project' }).click();
  }

  /* ---- Searching the files from the project's page. ---- */

  searchBox(): Locator {
    return this.page.getByRole('searchbox', { name: 'Search the project’s files' });
  }

  /** Types the query and presses Enter; resolves once the results (or "no passage") show. */
  async searchFiles(query: string, options: { timeout?: number } = {}): Promise<Locator> {
    await this.searchBox().fill(query);
    await this.searchBox().press('Enter');
    await expect(this.searchStatus()).toContainText(`“${query.trim()}”.`, options);
    return this.searchHits();
  }

  searchStatus(): Locator {
    return this.page.getByTestId('project-search-status');
  }

  /** "Keyword search (BM25) only: …" or "Hybrid search: …", with `data-mode`. */
  searchRetrieval(): Locator {
    return this.page.getByTestId('project-search-retrieval');
  }

  searchHits(): Locator {
    return this.page.getByRole('list', { name: 'Passages found' }).getByRole('listitem');
  }

  /* ---- The file viewer. ---- */

  viewer(): Locator {
    return this.page.getByTestId('file-viewer');
  }

  citedPassage(): Locator {
    return this.viewer().getByTestId('cited-passage');
  }
}
