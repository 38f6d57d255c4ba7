import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import path from 'node:path';
import { expect, test } from './fixtures';
import { OnboardingPage } from './pages/onboarding-page';
import { ProjectPage } from './pages/project-page';
import { ShellPage } from './pages/shell-page';

/** Serious and critical axe violations, as "rule: target" lines for a readable failure. */
async function findSeriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((node) => `${v.id}: ${node.target.join(' ')}`));
}

for (const scheme of ['light', 'dark'] as const) {
  test(`every screen has no serious or critical accessibility violations (${scheme})`, async ({ page, chat, llm }) => {
    // axe walks the whole page several times; the 2-core machine needs more than the default.
    test.setTimeout(90_000);
    const onboarding = new OnboardingPage(page);
    const shell = new ShellPage(page);
    await page.emulateMedia({ colorScheme: scheme });
    await onboarding.open();
    await onboarding.choose('Custom endpoint');
    expect(await findSeriousViolations(page), 'onboarding').toEqual([]);
    await onboarding.connectCustom({ baseUrl: `${llm.url}/v1`, model: 'gpt-4o-mini' });
    llm.setScenario({ kind: 'text', text: 'An answer with `code`.' });
    await chat.send('hello');
    await expect(chat.lastAnswer()).toContainText('An answer');
    expect(await findSeriousViolations(page), 'chat').toEqual([]);

    await shell.openPanel();
    await expect(page.getByTestId('inspector-messages')).toBeVisible();
    expect(await findSeriousViolations(page), 'inspector').toEqual([]);

    await page.keyboard.press('Control+k');
    await expect(shell.searchDialog).toBeVisible();
    expect(await findSeriousViolations(page), 'search').toEqual([]);
    await page.keyboard.press('Escape');

    await page.goto('/#/agents');
    await page.getByRole('button', { name: 'View' }).first().click();
    expect(await findSeriousViolations(page), 'agents').toEqual([]);

    await page.goto('/#/settings');
    await expect(page.getByRole('heading', { name: 'Settings' }).first()).toBeVisible();
    expect(await findSeriousViolations(page), 'settings').toEqual([]);

    // A project with a file, searched; then the file viewer opened at a passage.
    const project = new ProjectPage(page);
    await project.create('Accessible project');
    await project.upload([path.resolve('test/fixtures/documents/corpus/coffee.md')]);
    await expect(project.uploads().and(page.locator('[data-status="done"]'))).toHaveCount(1, { timeout: 30_000 });
    await expect(await project.searchFiles('fine grind', { timeout: 20_000 })).not.toHaveCount(0);
    expect(await findSeriousViolations(page), 'project').toEqual([]);
    await project.files().filter({ hasText: 'coffee.md' }).getByRole('button', { name: 'View coffee.md' }).click();
    await expect(project.viewer()).toContainText('Espresso needs a fine grind');
    expect(await findSeriousViolations(page), 'file viewer').toEqual([]);
  });
}
