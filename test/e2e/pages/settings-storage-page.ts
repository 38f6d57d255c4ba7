import type { Download, Locator, Page } from '@playwright/test';

/** Settings › Storage, as a person uses it. */
export class SettingsStoragePage {
  constructor(readonly page: Page) {}

  get section(): Locator {
    return this.page.getByRole('region', { name: 'Storage' });
  }

  async exportEverything(options: { includeApiKeys?: boolean } = {}): Promise<Download> {
    await this.page.getByLabel('Include API keys').setChecked(options.includeApiKeys ?? false);
    const download = this.page.waitForEvent('download');
    await this.page.getByRole('button', { name: 'Export everything' }).click();
    return download;
  }

  /** Chooses a file: its bytes, or the path of a file on disk (a large file is not copied over the protocol). */
  async importFile(file: string | { name: string; mimeType: string; buffer: Buffer }): Promise<void> {
    await this.page.getByLabel('Import a backup').setInputFiles(file);
  }

  async deleteEverything(): Promise<void> {
    await this.page.getByRole('button', { name: 'Delete everything…' }).click();
    await this.page.getByTestId('confirm-action-dialog').getByRole('button', { name: 'Delete everything' }).click();
  }
}
