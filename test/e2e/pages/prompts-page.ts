import { expect, type Locator, type Page } from '@playwright/test';

/** The prompt library screen: add, edit, delete saved prompts. */
export class PromptsPage {
  constructor(readonly page: Page) {}

  async open(): Promise<void> {
    await this.page.getByRole('link', { name: 'Prompts' }).click();
    await expect(this.page.getByRole('heading', { name: 'Prompts', level: 1 })).toBeVisible();
  }

  item(title: string): Locator {
    return this.page
      .getByTestId('prompt-list')
      .getByRole('listitem')
      .filter({ has: this.page.getByText(title, { exact: true }) });
  }

  async create(title: string, text: string): Promise<void> {
    await this.page.getByRole('button', { name: 'New prompt' }).click();
    await this.fill(title, text);
  }

  async fill(title: string, text: string): Promise<void> {
    const form = this.page.getByRole('form');
    await form.getByLabel('Title').fill(title);
    await form.getByLabel('Text').fill(text);
    await form.getByRole('button', { name: 'Save prompt' }).click();
    await expect(this.item(title)).toBeVisible();
  }
}
