import { expect, type Locator, type Page } from '@playwright/test';

/** The app shell: sidebar (or drawer), search, toasts, keyboard and the right panel. */
export class ShellPage {
  constructor(readonly page: Page) {}

  get sidebar(): Locator {
    return this.page.getByRole('navigation', { name: 'Chats' });
  }

  sessionRow(title: string): Locator {
    return this.page.getByTestId('session-row').filter({ has: this.page.getByRole('link', { name: title, exact: false }) });
  }

  group(name: string): Locator {
    return this.sidebar.getByRole('region', { name });
  }

  async sessionAction(title: string, action: 'Pin' | 'Unpin' | 'Rename' | 'Archive' | 'Unarchive' | 'Delete' | 'Compact now' | 'Undo compaction'): Promise<void> {
    await this.sessionRow(title).getByRole('button', { name: `Actions for ${title}` }).click();
    await this.sessionRow(title).getByRole('button', { name: action, exact: true }).click();
  }

  async rename(title: string, newTitle: string): Promise<void> {
    await this.sessionAction(title, 'Rename');
    const input = this.page.getByLabel('Chat title');
    await input.fill(newTitle);
    await input.press('Enter');
    await expect(this.sidebar.getByRole('link', { name: newTitle })).toBeVisible();
  }

  toast(text: string | RegExp): Locator {
    return this.page.getByTestId('toast').filter({ hasText: text });
  }

  async undo(text: string | RegExp): Promise<void> {
    await this.toast(text).getByRole('button', { name: 'Undo' }).click();
  }

  get searchDialog(): Locator {
    return this.page.getByTestId('search-dialog');
  }

  async search(query: string): Promise<Locator> {
    if (!(await this.searchDialog.isVisible())) await this.page.keyboard.press('Control+k');
    await this.searchDialog.getByRole('searchbox', { name: 'Search chats' }).fill(query);
    return this.searchDialog.getByTestId('search-results').getByRole('button');
  }

  get menuButton(): Locator {
    return this.page.getByRole('button', { name: 'Menu' });
  }

  async openPanel(): Promise<void> {
    const toggle = this.page.getByRole('button', { name: 'Context', exact: true });
    if ((await toggle.getAttribute('aria-pressed')) !== 'true') await toggle.click();
  }

  /** Saves a screenshot under test-results/screenshots/ for people to look at. */
  async screenshot(name: string): Promise<void> {
    await this.page.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: false });
  }
}
