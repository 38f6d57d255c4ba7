// Finds a Chromium for Playwright: $CARREL_CHROMIUM, then Debian's /usr/bin/chromium, then
// Playwright's own download. Shared by playwright.config.ts and scripts/test.mjs.
import { existsSync } from 'node:fs';

export const CHROMIUM_HINT =
  'No Chromium found: set CARREL_CHROMIUM=/path/to/chromium, or install one (Debian/Ubuntu: `apt-get install chromium`; elsewhere: `npx playwright install chromium`).';

export async function findChromium() {
  const fromEnv = process.env.CARREL_CHROMIUM;
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : undefined;
  for (const candidate of ['/usr/bin/chromium', '/usr/bin/chromium-browser']) {
    if (existsSync(candidate)) return candidate;
  }
  try {
    const { chromium } = await import('@playwright/test');
    const own = chromium.executablePath();
    return own && existsSync(own) ? own : undefined;
  } catch {
    return undefined;
  }
}
