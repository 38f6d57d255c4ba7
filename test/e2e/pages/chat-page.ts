import type { Locator, Page } from '@playwright/test';

/** The chat screen, as a person uses it. */
export class ChatPage {
  constructor(readonly page: Page) {}

  async newChat(): Promise<void> {
    await this.page.getByRole('link', { name: 'New chat' }).first().click();
  }

  get composer(): Locator {
    return this.page.getByLabel('Message', { exact: true });
  }

  async send(text: string): Promise<void> {
    await this.composer.fill(text);
    await this.page.getByRole('button', { name: 'Send' }).click();
  }

  async stop(): Promise<void> {
    await this.page.getByRole('button', { name: 'Stop' }).click();
  }

  userMessages(): Locator {
    return this.page.getByTestId('user-message');
  }

  answers(): Locator {
    return this.page.getByTestId('assistant-message');
  }

  lastAnswer(): Locator {
    return this.answers().last();
  }

  sessionLinks(): Locator {
    return this.page.getByTestId('session-list').getByRole('link');
  }
}
