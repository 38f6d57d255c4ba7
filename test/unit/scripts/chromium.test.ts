import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CHROMIUM_MAJORS_BEHIND, checkChromiumAge, describeOldChromium } from '../../../scripts/chromium.mjs';

const scratch = join(process.cwd(), 'test-results', `chromium-age-${process.pid}`);
mkdirSync(scratch, { recursive: true });
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A stand-in browser that prints this version, as Debian's wrapper script does. */
function fakeBrowser(name: string, printed: string): string {
  const path = join(scratch, name);
  writeFileSync(path, `#!/bin/sh\necho '${printed}'\n`);
  chmodSync(path, 0o755);
  return path;
}

describe('the Chromium the end-to-end tests run in', () => {
  it('is called too old, with how to update it, only past the allowed lag behind Playwright', () => {
    const old = describeOldChromium('Chromium 150.0.7871.100 built on Debian GNU/Linux 12 (bookworm)', '159.0.8154.6');
    expect(old).toMatch(/^Chromium 150 is 9 versions older than the 159 this Playwright drives/);
    expect(old).toContain('apt-get update && apt-get install chromium');
    expect(describeOldChromium(`Chromium ${159 - CHROMIUM_MAJORS_BEHIND}.0.1.2`, '159.0.8154.6')).toBeNull();
    expect(describeOldChromium(`Chromium ${158 - CHROMIUM_MAJORS_BEHIND}.0.1.2`, '159.0.8154.6')).not.toBeNull();
    expect(describeOldChromium('Google Chrome 160.0.1.2', '159.0.8154.6')).toBeNull();
  });

  it('is not judged when its version or the expected one cannot be read', () => {
    expect(describeOldChromium('', '159.0.8154.6')).toBeNull();
    expect(describeOldChromium('Chromium 150.0.7871.100', undefined)).toBeNull();
    expect(checkChromiumAge(join(scratch, 'no-such-browser'))).toBeNull();
  });

  it("reads a browser's own version against the Chromium of the installed Playwright", () => {
    expect(checkChromiumAge(fakeBrowser('ancient', 'Chromium 90.0.4430.212 built on Debian'))).toMatch(/^Chromium 90 is \d+ versions older/);
    expect(checkChromiumAge(fakeBrowser('fresh', 'Chromium 999.0.1.2 built on Debian'))).toBeNull();
  });
});
