import { expect, type Locator, type Page } from '@playwright/test';

/** The first screen's "Chat now, with no key" panel: the built-in model's download. */
export class BuiltinModelPage {
  constructor(readonly page: Page) {}

  section(): Locator {
    return this.page.getByRole('region', { name: 'Chat now, with no key' });
  }

  /** Points the download at a self-hosted folder and names the model in it. */
  async useFolder(folderUrl: string, modelId: string): Promise<void> {
    const section = this.section();
    await section.getByText('Model source').click();
    await section.getByLabel('A self-hosted folder').check();
    await section.getByLabel('Folder URL').fill(folderUrl);
    await section.getByLabel('Model id').fill(modelId);
  }

  /** Imports a model folder from this device (the folder picker, given `folder`) as model `modelId`. */
  async importFolder(folder: string, modelId: string): Promise<void> {
    const section = this.section();
    await this.openSource();
    await section.getByLabel('A folder on this device (imported)').check();
    await section.getByLabel('Model id').fill(modelId);
    await section.getByLabel('Model folder to import').setInputFiles(folder);
  }

  /** Opens the "Model source" disclosure unless it is open. */
  private async openSource(): Promise<void> {
    const details = this.section().locator('details');
    if (!(await details.evaluate((element: HTMLDetailsElement) => element.open))) await this.section().getByText('Model source').click();
  }

  async use(): Promise<void> {
    await this.section().getByRole('button', { name: /Use the built-in model|Resume download/ }).click();
  }

  progress(): Locator {
    return this.section().getByRole('progressbar', { name: 'Model download' });
  }

  async expectChatReady(): Promise<void> {
    await expect(this.page.getByLabel('Message', { exact: true })).toBeVisible();
  }
}

/** Settings › Built-in model: how it runs, the last answer's figures, and deleting its files. */
export class BuiltinModelSettingsPage {
  constructor(readonly page: Page) {}

  async open(): Promise<void> {
    // A hash change, not a load: the generation worker asked for its status is the one that answered.
    await this.page.evaluate(() => (location.hash = '#/settings'));
  }

  section(): Locator {
    return this.page.getByRole('region', { name: 'Built-in model' });
  }

  status(): Locator {
    return this.page.getByTestId('builtin-status');
  }

  async deleteFiles(): Promise<void> {
    await this.section().getByRole('button', { name: 'Delete the model files' }).click();
  }

  /** The storage meter's reading: the share of the quota in use. */
  async storageUsed(): Promise<number> {
    return Number(await this.page.getByRole('meter').getAttribute('value'));
  }
}
