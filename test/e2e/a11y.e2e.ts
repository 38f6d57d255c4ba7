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

/** A phone's width (the sidebar is a drawer, the panel covers the chat) and a desktop's. */
const WIDTHS = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1280, height: 800 },
] as const;

/** Checks the screen as shown and keeps a picture of it, named by screen, width and scheme, for people to look at. */
async function checkScreen(page: Page, screen: string, view: string): Promise<void> {
  expect(await findSeriousViolations(page), screen).toEqual([]);
  await new ShellPage(page).screenshot(`a11y-${screen.replace(/ /g, '-')}-${view}`);
}

for (const size of WIDTHS) {
  for (const scheme of ['light', 'dark'] as const) {
    const view = `${size.name}-${scheme}`;
    const isPhone = size.name === 'phone';

    test(`the first screen, the chat, its inspector and search have no serious or critical accessibility violations (${size.name}, ${scheme})`, async ({ page, chat, llm }) => {
      // axe walks the whole page several times; the 2-core machine needs more than the default.
      test.setTimeout(90_000);
      const onboarding = new OnboardingPage(page);
      const shell = new ShellPage(page);
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.emulateMedia({ colorScheme: scheme });
      await onboarding.open();
      await onboarding.choose('Custom endpoint');
      await checkScreen(page, 'onboarding', view);
      await onboarding.connectCustom({ baseUrl: `${llm.url}/v1`, model: 'gpt-4o-mini' });
      llm.setScenario({ kind: 'text', text: 'An answer with `code`.' });
      await chat.send('hello');
      await expect(chat.lastAnswer()).toContainText('An answer');
      await checkScreen(page, 'chat', view);

      await shell.openPanel();
      await expect(page.getByTestId('inspector-messages')).toBeVisible();
      await checkScreen(page, 'inspector', view);
      // On a phone the panel covers the chat and closes from inside.
      const inspector = page.getByRole('complementary', { name: 'Context inspector' });
      if (isPhone) await inspector.getByRole('button', { name: 'Close' }).click();
      else await page.getByRole('button', { name: 'Context', exact: true }).click();
      await expect(inspector).toBeHidden();

      if (isPhone) {
        await shell.menuButton.click();
        await expect(shell.sidebar).toBeVisible();
        await checkScreen(page, 'menu', view);
        await page.keyboard.press('Escape');
        await expect(shell.sidebar).toBeHidden();
      }

      await page.keyboard.press('Control+k');
      await expect(shell.searchDialog).toBeVisible();
      await checkScreen(page, 'search', view);
    });

    test(`agents, usage, settings, a project and its file viewer have no serious or critical accessibility violations (${size.name}, ${scheme})`, async ({ page, llm }) => {
      test.setTimeout(90_000);
      const shell = new ShellPage(page);
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.emulateMedia({ colorScheme: scheme });
      await new OnboardingPage(page).connectCustom({ baseUrl: `${llm.url}/v1`, model: 'gpt-4o-mini' });

      await page.goto('/#/agents');
      await page.getByRole('button', { name: 'View' }).first().click();
      await checkScreen(page, 'agents', view);

      await page.goto('/#/usage');
      await expect(page.getByRole('heading', { name: 'Usage', level: 1 })).toBeVisible();
      await checkScreen(page, 'usage', view);

      await page.goto('/#/settings');
      await expect(page.getByRole('heading', { name: 'Settings' }).first()).toBeVisible();
      await checkScreen(page, 'settings', view);

      // A project with a file, searched; then the file viewer opened at a passage.
      if (isPhone) await shell.menuButton.click();
      const project = new ProjectPage(page);
      await project.create('Accessible project');
      await project.upload([path.resolve('test/fixtures/documents/corpus/coffee.md')]);
      await expect(project.uploads().and(page.locator('[data-status="done"]'))).toHaveCount(1, { timeout: 30_000 });
      await expect(await project.searchFiles('fine grind', { timeout: 20_000 })).not.toHaveCount(0);
      await checkScreen(page, 'project', view);
      await project.files().filter({ hasText: 'coffee.md' }).getByRole('button', { name: 'View coffee.md' }).click();
      await expect(project.viewer()).toContainText('Espresso needs a fine grind');
      await checkScreen(page, 'file viewer', view);
    });
  }
}
