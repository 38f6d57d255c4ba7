import type { Locator, Page } from '@playwright/test';

/** The context inspector in the right panel. */
export class InspectorPage {
  constructor(readonly page: Page) {}

  get root(): Locator {
    return this.page.getByTestId('context-inspector');
  }

  async show(view: 'Next request' | 'Last request'): Promise<void> {
    await this.root.getByRole('radio', { name: view }).check();
  }

  messages(): Locator {
    return this.root.getByTestId('inspector-messages').getByRole('listitem');
  }

  /** The kind letters of the listed messages, in order (S, CA, U, A, R, …). */
  async kinds(): Promise<string[]> {
    return this.messages().evaluateAll((items) => items.map((item) => item.getAttribute('data-kind') ?? ''));
  }
}
