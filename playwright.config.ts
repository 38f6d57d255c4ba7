import { defineConfig, devices } from '@playwright/test';
import { existsSync } from 'node:fs';

/** Chromium: $CARREL_CHROMIUM, else Debian's, else Playwright's own (see scripts/chromium.mjs). */
const executablePath =
  process.env.CARREL_CHROMIUM ?? (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined);

export const E2E_APP_PORT = Number(process.env.CARREL_E2E_PORT ?? 4180);
/** Another build folder and port let several checkouts or engineers run e2e side by side. */
const DIST_DIR = process.env.CARREL_DIST ?? 'dist';

export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '**/*.e2e.ts',
  outputDir: process.env.CARREL_E2E_OUTPUT ?? 'test-results/e2e',
  fullyParallel: false,
  forbidOnly: true,
  retries: 0,
  // Two cores: one browser per core at most, each with its own mock LLM server.
  workers: process.env.CI ? 2 : 2,
  // Limits for a test that hangs, not speed targets (those are benches): a loaded two-core
  // machine can take several times a test's usual time (a first question took 1.7 s from Send to
  // the provider's request on a quiet machine and 14 s beside another browser running axe), and a
  // passing test never waits them out. In a clean run on the CI machine the slowest tests took
  // 40-45 s of a 60 s limit, so the limit is 90 s.
  timeout: 90_000,
  expect: { timeout: 30_000 },
  reporter: 'list',
  use: {
    baseURL: `http://127.0.0.1:${E2E_APP_PORT}`,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    // Each test opens a fresh profile, where the service worker would download and precache the
    // whole build (26 MB, 121 files) while the test runs, and the fixtures' Cache Storage scans
    // would read it back. Tests about the offline copy, updates or the precache opt in with
    // `test.use({ serviceWorkers: 'allow' })` (pwa, builtin-model, reliability/key-hygiene).
    serviceWorkers: 'block',
    ...devices['Desktop Chrome'],
    launchOptions: {
      executablePath,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-quic',
        '--no-first-run',
      ],
    },
  },
  webServer: {
    command: `npx vite preview --outDir ${DIST_DIR} --port ${E2E_APP_PORT} --strictPort --host 127.0.0.1`,
    url: `http://127.0.0.1:${E2E_APP_PORT}`,
    reuseExistingServer: !process.env.CI,
    timeout: 60_000,
  },
});
