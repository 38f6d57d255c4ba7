import type { Locator, Page } from '@playwright/test';

export interface ProviderFormInput {
  kind?: 'openai-compatible' | 'openai' | 'anthropic' | 'google';
  name: string;
  baseUrl: string;
  apiKey: string;
  model: string;
}

/** The preset the form starts from for each protocol: the big three, else a custom endpoint. */
export const PRESET_FOR_KIND: Record<NonNullable<ProviderFormInput['kind']>, string> = {
  openai: 'openai',
  anthropic: 'anthropic',
  google: 'google',
  'openai-compatible': 'custom',
};

/** The Settings screen, as a person uses it. */
export class SettingsPage {
  constructor(readonly page: Page) {}

  async open(): Promise<void> {
    await this.page.goto('/#/settings');
    await this.page.getByRole('heading', { name: 'Settings', exact: true }).waitFor();
  }

  async addProvider(input: ProviderFormInput): Promise<void> {
    const form = this.page.getByRole('form', { name: 'Add a provider' });
    const kind = input.kind ?? 'openai-compatible';
    await form.getByLabel('Preset').selectOption(PRESET_FOR_KIND[kind]);
    if (kind === 'openai-compatible') await form.getByLabel('Type').selectOption(kind);
    await form.getByLabel('Name').fill(input.name);
    await form.getByLabel('Base URL').fill(input.baseUrl);
    await form.getByLabel('API key').fill(input.apiKey);
    await form.getByLabel('Model').fill(input.model);
    await form.getByRole('button', { name: 'Add provider' }).click();
    await this.page.getByTestId('provider-list').getByText(input.name, { exact: true }).waitFor();
  }

  /** The card of a configured provider. */
  providerCard(name: string): Locator {
    return this.page.getByTestId('provider-card').filter({ has: this.page.getByText(name, { exact: true }) });
  }

  async testConnection(name: string): Promise<void> {
    await this.page.getByRole('button', { name: `Test connection to ${name}` }).click();
  }
}
