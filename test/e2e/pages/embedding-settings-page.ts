import type { Locator, Page } from '@playwright/test';

/** Settings → Embeddings: the model, where its files come from, and "Download now". */
export class EmbeddingSettingsPage {
  constructor(readonly page: Page) {}

  section(): Locator {
    return this.page.getByRole('region', { name: 'Embeddings' });
  }

  model(): Locator {
    return this.section().getByLabel('Embedding model');
  }

  /** "A self-hosted folder" at this address (saved when the field changes). */
  async useSelfHosted(baseUrl: string): Promise<void> {
    await this.section().getByLabel('A self-hosted folder').check();
    const address = this.section().getByLabel('Model folder address');
    await address.fill(baseUrl);
    await address.press('Tab');
  }

  downloads(): Locator {
    return this.section().getByLabel('Allow downloading model files');
  }

  quantized(): Locator {
    return this.section().getByLabel('Use the quantized (8-bit, four times smaller) model');
  }

  async downloadNow(): Promise<void> {
    await this.section().getByRole('button', { name: 'Download now' }).click();
  }

  progress(): Locator {
    return this.section().getByRole('progressbar', { name: 'Model download' });
  }

  status(): Locator {
    return this.page.getByTestId('embedding-status');
  }
}
