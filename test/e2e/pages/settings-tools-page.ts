import type { Locator, Page } from '@playwright/test';

export interface SearchInput {
  kind: 'tavily' | 'exa' | 'searxng';
  baseUrl: string;
  apiKey?: string;
}

export interface McpServerInput {
  name: string;
  url: string;
  authHeader?: string;
  allowedTools?: string[];
}

/** Settings › Web tools and MCP servers, as a person uses them. */
export class SettingsToolsPage {
  constructor(readonly page: Page) {}

  get webForm(): Locator {
    return this.page.getByRole('form', { name: 'Web tools' });
  }

  async configureWebTools(input: {
    search?: SearchInput;
    shouldAllowPrivateNetwork: boolean;
  }): Promise<void> {
    const form = this.webForm;
    if (input.search) {
      await form.getByLabel('Search service').selectOption(input.search.kind);
      if (input.search.kind === 'searxng') {
        await form.getByLabel('SearXNG address').fill(input.search.baseUrl);
      } else {
        await form.getByLabel('Search API key').fill(input.search.apiKey ?? '');
        await form.getByLabel('Search API URL').fill(input.search.baseUrl);
      }
    }
    await form.getByLabel('Allow private network addresses').setChecked(input.shouldAllowPrivateNetwork);
    await form.getByRole('button', { name: 'Save web tools' }).click();
    await form.getByText('Saved: the next message uses these settings.').waitFor();
  }

  async addMcpServer(input: McpServerInput): Promise<void> {
    await this.page.getByRole('button', { name: 'Add MCP server' }).click();
    const form = this.page.getByRole('form', { name: 'Add an MCP server' });
    await form.getByLabel('Server name').fill(input.name);
    await form.getByLabel('Server URL').fill(input.url);
    if (input.authHeader) await form.getByLabel('Auth header').fill(input.authHeader);
    if (input.allowedTools?.length) {
      await form.getByRole('button', { name: 'Test server' }).click();
      for (const tool of input.allowedTools) await form.getByLabel(tool, { exact: true }).check();
    }
    await form.getByRole('button', { name: 'Save server' }).click();
    await this.page.getByTestId('mcp-server-list').getByText(input.name, { exact: true }).waitFor();
  }
}
