import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  playwrightCounts,
  playwrightFailures,
  playwrightListedCount,
  slowPlaywrightTests,
  vitestCounts,
  vitestFailures,
} from '../../../scripts/test-counts.mjs';

/**
 * The closing line of `npm test` must not hide a failure. These run the real runners on a
 * scratch folder holding a passing test, a failing one, a skipped one and a file that does not
 * load, and read their real JSON reports.
 */
// Playwright empties its output folder before a run, and by default that is the test-results
// folder beside the nearest package.json, which holds this scratch folder: each scratch config
// names its own output folder, or the run deletes the specs it is about to look for.
const scratch = join(process.cwd(), 'test-results', `runner-counts-${process.pid}`);
mkdirSync(scratch, { recursive: true });
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function runReport(
  command: string,
  args: string[],
  reportPath: string,
  env: NodeJS.ProcessEnv = {},
): unknown {
  const result = spawnSync(command, args, {
    cwd: scratch,
    encoding: 'utf8',
    env: { ...process.env, CI: '', ...env },
  });
  expect(result.status, 'a run with failures exits non-zero').not.toBe(0);
  return JSON.parse(readFileSync(reportPath, 'utf8'));
}

/** Runs Playwright on a scratch folder holding `specs` (file name → source); returns its JSON report. */
function runPlaywright(name: string, specs: Record<string, string>): unknown {
  const dir = join(scratch, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'playwright.config.mjs'),
    "export default { testDir: '.', testMatch: '*.spec.mjs', outputDir: './out', workers: 1 };\n",
  );
  for (const [file, source] of Object.entries(specs)) writeFileSync(join(dir, file), source);
  const reportPath = join(dir, 'report.json');
  return runReport(
    join(process.cwd(), 'node_modules', '.bin', 'playwright'),
    ['test', '--config', join(dir, 'playwright.config.mjs'), '--reporter=json'],
    reportPath,
    { PLAYWRIGHT_JSON_OUTPUT_NAME: reportPath },
  );
}

describe('npm test counts', () => {
  it('counts a Vitest file that fails to load as a failure, and skipped tests as skipped', () => {
    const dir = join(scratch, 'vitest');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'vitest.config.mjs'),
      "export default { test: { include: ['*.test.mjs'], globals: true } };\n",
    );
    writeFileSync(
      join(dir, 'good.test.mjs'),
      "it('passes', () => {});\nit.skip('is skipped', () => {});\n",
    );
    writeFileSync(join(dir, 'bad.test.mjs'), "it('fails', () => { throw new Error('no'); });\n");
    writeFileSync(
      join(dir, 'broken.test.mjs'),
      "import './does-not-exist.mjs';\nit('never runs', () => {});\n",
    );
    const reportPath = join(dir, 'report.json');
    const report = runReport(
      join(process.cwd(), 'node_modules', '.bin', 'vitest'),
      [
        'run',
        '--root',
        dir,
        '--config',
        join(dir, 'vitest.config.mjs'),
        '--reporter=json',
        `--outputFile.json=${reportPath}`,
      ],
      reportPath,
    );
    expect(vitestCounts(report)).toEqual({ passed: 1, failed: 2, skipped: 1 });
    // The end of the log names what failed, with the first line of its error.
    const failures = vitestFailures(report, dir);
    expect(failures).toHaveLength(2);
    expect(failures).toContainEqual('bad.test.mjs › fails: Error: no');
    expect(failures.find((line) => line.startsWith('broken.test.mjs did not load:'))).toContain(
      'does-not-exist.mjs',
    );
  }, 60_000);

  it('counts a Playwright spec that fails to load as a failure', () => {
    const report = runPlaywright('playwright', {
      'good.spec.mjs':
        "import { test } from '@playwright/test';\ntest('passes', () => {});\ntest.skip('is skipped', () => {});\n",
      'broken.spec.mjs': "import { test } from '@playwright/test';\nthrow new Error('does not load');\n",
    });
    // Playwright runs nothing when a spec does not load; the load error is the failure.
    expect(playwrightCounts(report)).toEqual({ passed: 0, failed: 1, skipped: 0 });
    expect(playwrightFailures(report)).toEqual([
      expect.stringMatching(/^did not load: .*does not load/),
    ]);
  }, 60_000);

  it('names a failed Playwright test with its error, the line it stopped at and what it was waiting for', () => {
    const report = runPlaywright('playwright-failing', {
      'mixed.spec.mjs': [
        "import { test, expect } from '@playwright/test';",
        "test('passes', () => {});",
        "test('fails', () => { expect(1, 'one is two').toBe(2); });",
        "test('times out', async () => {",
        '  test.setTimeout(1_000);',
        "  await expect.poll(() => 'shown', { message: 'the toast goes' }).toBe('gone');",
        '});',
        '',
      ].join('\n'),
    });
    expect(playwrightCounts(report)).toEqual({ passed: 1, failed: 2, skipped: 0 });
    expect(playwrightFailures(report)).toEqual([
      expect.stringMatching(/^mixed\.spec\.mjs: fails: .*one is two/),
      '  at mixed.spec.mjs:3',
      expect.stringMatching(/^mixed\.spec\.mjs: times out: .*the toast goes/),
      '  at mixed.spec.mjs:6',
      expect.stringMatching(/^ {4}- Test timeout of 1000ms exceeded/),
    ]);
  }, 60_000);

  it('counts a missing report as a failure', () => {
    expect(vitestCounts(undefined).failed).toBe(1);
    expect(playwrightCounts(undefined).failed).toBe(1);
    expect(vitestFailures(undefined)).toEqual(['no Vitest report was written']);
    expect(playwrightFailures(undefined)).toEqual(['no Playwright report was written']);
  });

  it('counts the tests a --list report names', () => {
    const report = {
      suites: [
        { specs: [{ tests: [{}, {}] }], suites: [{ specs: [{ tests: [{}] }] }] },
        { specs: [], suites: [] },
      ],
    };
    expect(playwrightListedCount(report)).toBe(3);
  });

  it('names the end-to-end tests that used more than half of their time limit, slowest first', () => {
    const spec = (title: string, duration: number) => ({
      title,
      file: 'a.e2e.ts',
      tests: [{ timeout: 30_000, results: [{ duration }] }],
    });
    const report = {
      suites: [
        {
          specs: [spec('quick', 4_000), spec('slow', 16_000)],
          suites: [{ specs: [spec('slower', 28_000)] }],
        },
      ],
    };
    expect(slowPlaywrightTests(report)).toEqual([
      'a.e2e.ts: slower (28.0 of 30 s)',
      'a.e2e.ts: slow (16.0 of 30 s)',
    ]);
  });
});
