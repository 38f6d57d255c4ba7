import { expect, type Locator, type Page } from '@playwright/test';

/** The chat screen, as a person uses it. */
export class ChatPage {
  constructor(readonly page: Page) {}

  async newChat(): Promise<void> {
    await this.page.getByRole('link', { name: 'New chat' }).first().click();
  }

  /** Starts a temporary chat from the sidebar. */
  async temporaryChat(): Promise<void> {
    await this.page.getByRole('link', { name: 'Temporary chat' }).click();
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

  /**
   * Presses Stop in the same moment as it reads the last answer, for tests that count what an
   * answer gained after Stop; returns the text read.
   */
  async stopReadingLastAnswer(): Promise<string> {
    return this.page.evaluate(() => {
      const answers = document.querySelectorAll('[data-testid="assistant-message"]');
      const text = answers[answers.length - 1]?.textContent ?? '';
      const stop = [...document.querySelectorAll('button')].find((button) => button.getAttribute('aria-label') === 'Stop' || button.textContent?.trim() === 'Stop');
      if (stop === undefined) throw new Error('No Stop button');
      stop.click();
      return text;
    });
  }

  /**
   * The composer's agent picker, by its role and exact name: while one screen gives way to
   * another, "Agent" as a label also matches the Agents screen and its radio buttons.
   */
  agentPicker(): Locator {
    return this.page.getByRole('combobox', { name: 'Agent', exact: true });
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

  /**
   * Resolves as soon as the last answer shows `text`: checked on every animation frame, not on
   * expect's back-off, for tests that must act at a precise point of a stream.
   */
  async waitForLastAnswerToShow(text: string, timeoutMs: number): Promise<void> {
    await this.page.waitForFunction(
      (wanted) => {
        const answers = document.querySelectorAll('[data-testid="assistant-message"]');
        return answers[answers.length - 1]?.textContent?.includes(wanted) ?? false;
      },
      text,
      { timeout: timeoutMs, polling: 'raf' },
    );
  }

  sessionLinks(): Locator {
    return this.page.getByTestId('session-list').getByRole('link');
  }

  /* ---- Message list and message actions (messages, branches, compare, long chats). ---- */

  messageList(): Locator {
    return this.page.getByTestId('messages');
  }

  /** Scrolls the (virtualized) list to its first message. */
  async scrollToTop(): Promise<void> {
    await this.messageList().evaluate((element) => element.scrollTo({ top: 0 }));
  }

  /** A question's row: the bubble plus its actions (copy, edit, pin, exclude, branches). */
  userRows(): Locator {
    return this.page.getByTestId('user-message-row');
  }

  async editMessage(row: Locator, text: string): Promise<void> {
    await row.getByRole('button', { name: 'Edit', exact: true }).click();
    await row.getByLabel('Edited message').fill(text);
    await row.getByRole('button', { name: 'Send edit' }).click();
  }

  /** "Regenerate" → the model to answer again with. */
  async regenerateWith(answer: Locator, modelId: string): Promise<void> {
    await answer.getByLabel('Regenerate', { exact: true }).click();
    await answer.getByRole('menuitem', { name: `Regenerate with ${modelId}` }).click();
  }

  /** "Delete" on a message, confirmed in its dialog. */
  async deleteMessage(row: Locator): Promise<void> {
    await row.getByRole('button', { name: 'Delete', exact: true }).click();
    const dialog = this.page.getByTestId('delete-message-dialog');
    await dialog.getByRole('button', { name: /^Delete (question|answer)$/ }).click();
    await expect(dialog).toBeHidden();
  }

  branchLabel(row: Locator): Locator {
    return row.getByTestId('branch-label');
  }

  async previousBranch(row: Locator): Promise<void> {
    await row.getByRole('button', { name: 'Previous branch' }).click();
  }

  async nextBranch(row: Locator): Promise<void> {
    await row.getByRole('button', { name: 'Next branch' }).click();
  }

  async togglePin(row: Locator): Promise<void> {
    await row.getByRole('button', { name: /^(Pin|Unpin)$/ }).click();
  }

  async toggleExclude(row: Locator): Promise<void> {
    await row.getByRole('button', { name: /^(Exclude|Include)$/ }).click();
  }

  compareView(): Locator {
    return this.page.getByTestId('compare-view');
  }

  compareColumns(): Locator {
    return this.compareView().getByTestId('compare-column');
  }

  /** Adds one more model to the composer (compare mode). */
  async addCompareModel(): Promise<void> {
    await this.page.getByRole('button', { name: '+ Compare' }).click();
  }
}
