import { chromium, type BrowserContext, type Page, type TestInfo } from '@playwright/test';
import { readFile } from 'node:fs/promises';

/** How long the browser's child processes get to go away after the browser process died. */
const CHILD_EXIT_TIMEOUT_MS = 10_000;
const EXIT_POLL_MS = 50;

/**
 * Chromium on a profile folder that outlives it, launched with the executable, flags and device
 * settings of the Playwright project, so a test can kill the browser process and start it again.
 */
export interface PersistentBrowser {
  readonly context: BrowserContext;
  readonly page: Page;
  /**
   * Ids of the browser process and its children (renderers, network and storage services),
   * read over the DevTools protocol: `browser.process()` is null for persistent contexts.
   */
  processIds(): Promise<{ browser: number; all: number[] }>;
  /**
   * SIGKILLs the browser process at once (synchronously, so nothing else runs in this Node
   * process between the caller's last look and the kill), then resolves once every process of
   * `pids` has gone, so the profile is free for the next launch.
   */
  killNow(pids: { browser: number; all: number[] }): Promise<void>;
  close(): Promise<void>;
}

export async function launchPersistentBrowser(
  userDataDir: string,
  project: TestInfo['project'],
): Promise<PersistentBrowser> {
  const { launchOptions, baseURL, viewport, userAgent, deviceScaleFactor, isMobile, hasTouch } = project.use;
  const context = await chromium.launchPersistentContext(userDataDir, {
    ...launchOptions,
    ...(baseURL === undefined ? {} : { baseURL }),
    ...(viewport === undefined ? {} : { viewport }),
    ...(userAgent === undefined ? {} : { userAgent }),
    ...(deviceScaleFactor === undefined ? {} : { deviceScaleFactor }),
    ...(isMobile === undefined ? {} : { isMobile }),
    ...(hasTouch === undefined ? {} : { hasTouch }),
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const browser = context.browser();
  if (browser === null) throw new Error('A persistent Chromium context has no Browser to ask for its processes.');
  const closed = new Promise<void>((resolve) => context.once('close', () => resolve()));

  return {
    context,
    page,
    async processIds() {
      const session = await browser.newBrowserCDPSession();
      const { processInfo } = (await session.send('SystemInfo.getProcessInfo')) as {
        processInfo: { type: string; id: number }[];
      };
      await session.detach();
      const main = processInfo.find((info) => info.type === 'browser');
      if (main === undefined) throw new Error('DevTools listed no browser process.');
      return { browser: main.id, all: processInfo.map((info) => info.id) };
    },
    async killNow(pids) {
      process.kill(pids.browser, 'SIGKILL');
      await closed;
      await waitForExit(pids.all);
    },
    close: () => context.close(),
  };
}

/** Gone, or a zombie nobody has reaped yet (orphans are reaped by init, if ever). */
async function hasExited(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) S …": the state follows the last parenthesis, since comm may hold spaces.
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

async function waitForExit(pids: readonly number[]): Promise<void> {
  const deadline = Date.now() + CHILD_EXIT_TIMEOUT_MS;
  for (;;) {
    const alive: number[] = [];
    for (const pid of pids) if (!(await hasExited(pid))) alive.push(pid);
    if (alive.length === 0) return;
    if (Date.now() > deadline) {
      throw new Error(`Chromium processes ${alive.join(', ')} still run ${CHILD_EXIT_TIMEOUT_MS} ms after the browser was killed.`);
    }
    await new Promise((resolve) => setTimeout(resolve, EXIT_POLL_MS));
  }
}
