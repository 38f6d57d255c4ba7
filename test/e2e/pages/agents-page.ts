import { expect, type Locator, type Page } from '@playwright/test';

export interface AgentInput {
  name: string;
  prompt?: string;
  reminders?: string;
  isReplacingSystemPrompt?: boolean;
  strategy?: { label: string; fields?: Record<string, string>; checks?: string[] };
  /** Percent of the budget reserved for uploaded files. */
  uploadShare?: string;
  /** Generation fields by label, e.g. { 'Temperature (0–2)': '0.4' }. */
  generation?: Record<string, string>;
  isCacheFriendly?: boolean;
  /** Tools to tick by name (e.g. search_chats), besides those a new agent starts with. */
  tools?: string[];
}

/** The agents screen: list, editor, duplicate, delete. */
export class AgentsPage {
  constructor(readonly page: Page) {}

  async open(): Promise<void> {
    await this.page.goto('/#/agents');
    await expect(this.page.getByRole('heading', { name: 'Agents', level: 1 })).toBeVisible();
  }

  get list(): Locator {
    return this.page.getByTestId('agent-list');
  }

  item(name: string): Locator {
    return this.list.getByRole('listitem').filter({ has: this.page.getByText(name, { exact: true }) });
  }

  /** The editor of an agent, opened from its list item. */
  async edit(name: string): Promise<Locator> {
    await this.item(name).getByRole('button', { name: 'Edit' }).click();
    return this.page.getByRole('form', { name: `Edit ${name}` });
  }

  /** Creates an agent and fills the editor; returns once it is saved under its name. */
  async create(input: AgentInput): Promise<void> {
    await this.page.getByRole('button', { name: 'New agent' }).click();
    await this.fill('New agent', input);
  }

  async fill(currentName: string, input: AgentInput): Promise<void> {
    const form = this.page.getByRole('form', { name: `Edit ${currentName}` });
    await form.getByLabel('Name').fill(input.name);
    if (input.prompt !== undefined) await form.getByLabel('Prompt', { exact: true }).fill(input.prompt);
    if (input.isReplacingSystemPrompt) await form.getByLabel(/Replace the system prompt/).check();
    if (input.reminders !== undefined) await form.getByLabel(/Reminders/).fill(input.reminders);
    if (input.strategy) {
      await form.getByLabel('Strategy').selectOption({ label: input.strategy.label });
      for (const [label, value] of Object.entries(input.strategy.fields ?? {})) await form.getByLabel(label).fill(value);
      for (const label of input.strategy.checks ?? []) await form.getByLabel(label).check();
    }
    for (const [label, value] of Object.entries(input.generation ?? {})) await form.getByLabel(label).fill(value);
    if (input.isCacheFriendly) await form.getByRole('radio', { name: /^Cache-friendly/ }).check();
    for (const tool of input.tools ?? []) await form.getByRole('checkbox', { name: new RegExp(`^${tool}\\b`) }).check();
    if (input.uploadShare !== undefined) await form.getByLabel(/Share reserved for uploaded files/).fill(input.uploadShare);
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(this.item(input.name)).toBeVisible();
  }
}
