import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../support/free-port';

/** `npm start` as a newcomer runs it: the URL it prints answers, and stopping it frees the port. */

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});


function start(command: string, args: string[], port: number): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(command, args, { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url);
    return true;
  } catch {
    return false;
  }
}

describe('npm start', () => {
  it('serves the built app at the URL it prints, with its isolation headers, and SIGTERM to npm frees the port', async () => {
    const port = await freePort();
    const run = start('npm', ['start', '--silent'], port);
    await until(() => run.output().includes('Carrel is running at'), `"running at" in: ${run.output()}`, 150_000);
    expect(run.output()).toContain(`http://localhost:${port}`);

    const response = await fetch(`http://127.0.0.1:${port}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(await response.text()).toContain('<div id="app"');

    run.child.kill('SIGTERM');
    await run.exited;
    await until(async () => !(await answers(`http://127.0.0.1:${port}/`)), 'the server to stop', 10_000);
  }, 180_000);

  it('says which port is taken and how to choose another, without building', async () => {
    const blocker: Server = createServer();
    const port = await new Promise<number>((resolve) =>
      blocker.listen(0, '127.0.0.1', () => resolve((blocker.address() as AddressInfo).port)),
    );
    try {
      const run = start('node', ['scripts/start.mjs'], port);
      expect(await run.exited).toBe(1);
      expect(run.output()).toContain(`Port ${port} is already in use`);
      expect(run.output()).toContain(`PORT=${port + 1} npm start`);
      expect(run.output()).not.toContain('Building');
    } finally {
      blocker.close();
    }
  }, 60_000);
});
