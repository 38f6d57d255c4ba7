// Finds a Chromium for Playwright: $CARREL_CHROMIUM, then Debian's /usr/bin/chromium, then
// Playwright's own download. Shared by playwright.config.ts and scripts/test.mjs.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

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

/**
 * Major versions a browser may lag behind the one this Playwright was built for. Further back,
 * Playwright's emulation stops taking hold in ways that read as the app's faults: Chromium 150
 * under Playwright 1.65 (built for 159) stayed online after `setOffline(true)` and ignored a
 * lowered storage quota, while 156 passed every test.
 */
export const CHROMIUM_MAJORS_BEHIND = 4;

/**
 * A warning when the browser `--version` describes (say "Chromium 150.0.7871.100 built on …")
 * is more than CHROMIUM_MAJORS_BEHIND major versions older than `expected`; null otherwise,
 * and when either cannot be read.
 */
export function describeOldChromium(versionText, expected) {
  const found = /(\d+)\.\d+\.\d+/.exec(versionText ?? '');
  const wanted = /^(\d+)\./.exec(expected ?? '');
  if (!found || !wanted) return null;
  const [major, wantedMajor] = [Number(found[1]), Number(wanted[1])];
  if (wantedMajor - major <= CHROMIUM_MAJORS_BEHIND) return null;
  return (
    `Chromium ${major} is ${wantedMajor - major} versions older than the ${wantedMajor} this Playwright drives: ` +
    'tests that take the browser offline or limit its storage may fail for that reason alone. ' +
    'Update it (Debian/Ubuntu: `apt-get update && apt-get install chromium`) or set CARREL_CHROMIUM to a newer one.'
  );
}

/** describeOldChromium for a browser on disk, against the Chromium this Playwright was built for. */
export function checkChromiumAge(executable) {
  try {
    const require = createRequire(join(process.cwd(), 'package.json'));
    const browsers = JSON.parse(
      readFileSync(join(dirname(require.resolve('playwright-core/package.json')), 'browsers.json'), 'utf8'),
    );
    const expected = browsers.browsers.find((browser) => browser.name === 'chromium')?.browserVersion;
    const version = spawnSync(executable, ['--version'], { encoding: 'utf8', timeout: 30_000 });
    return describeOldChromium(version.stdout, expected);
  } catch {
    return null;
  }
}
