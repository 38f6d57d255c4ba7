import type { Page } from '@playwright/test';

export interface ProviderFormInput {
  kind?: 'openai-compatible' | 'openai' | 'anthropic' | 'google';
  name: string;
  baseUrl: string;
  apiKey: string;
  model: string;
}

/** The Settings screen, as a person uses it. */
export class SettingsPage {
  constructor(readonly page: Page) {}

  async open(): Promise<void> {
    await this.page.goto('/#/settings');
    await this.page.getByRole('heading', { name: 'Settings' }).waitFor();
  }

  async addProvider(input: ProviderFormInput): Promise<void> {
    const form = this.page.getByRole('form', { name: 'Add a provider' });
    await form.getByLabel('Type').selectOption(input.kind ?? 'openai-compatible');
    await form.getByLabel('Name').fill(input.name);
    await form.getByLabel('Base URL').fill(input.baseUrl);
    await form.getByLabel('API key').fill(input.apiKey);
    await form.getByLabel('Model').fill(input.model);
    await form.getByRole('button', { name: 'Add provider' }).click();
    await this.page.getByTestId('provider-list').getByText(input.name, { exact: true }).waitFor();
  }
}
