import { expect, type Page } from '@playwright/test';

export interface CustomProviderInput {
  baseUrl: string;
  model: string;
  apiKey?: string;
}

/** The first screen without a provider: provider cards and one form. */
export class OnboardingPage {
  constructor(readonly page: Page) {}

  async open(): Promise<void> {
    await this.page.goto('/#/');
    await expect(this.page.getByRole('heading', { name: 'Welcome to Carrel' })).toBeVisible();
  }

  async choose(name: string): Promise<void> {
    await this.page.getByRole('list', { name: 'Providers' }).getByRole('button', { name: new RegExp(`^${name}`) }).click();
  }

  /** Connects an OpenAI-compatible endpoint (the mock LLM) and lands in the chat. */
  async connectCustom(input: CustomProviderInput): Promise<void> {
    await this.open();
    await this.choose('Custom endpoint');
    const form = this.page.getByRole('form', { name: 'Connect Custom endpoint' });
    await form.getByLabel('Base URL').fill(input.baseUrl);
    await form.getByLabel(/API key/).fill(input.apiKey ?? 'sk-e2e');
    await form.getByLabel('Model').fill(input.model);
    await form.getByRole('button', { name: 'Start chatting' }).click();
    await expect(this.page.getByLabel('Message', { exact: true })).toBeVisible();
  }
}
