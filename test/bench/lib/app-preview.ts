import { spawn, type ChildProcess } from 'node:child_process';

/** Builds the production app into `outDir` and serves it with `vite preview` on 127.0.0.1. */

export function runCommand(command: string, args: string[]): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { stdio: 'inherit' });
    child.on('exit', (code) =>
      code === 0 ? done() : fail(new Error(`${command} exited ${code}`)),
    );
  });
}

export function buildApp(outDir: string, extraArgs: readonly string[] = []): Promise<void> {
  return runCommand('npx', [
    'vite',
    'build',
    '--outDir',
    outDir,
    '--logLevel',
    'error',
    ...extraArgs,
  ]);
}

export interface AppPreview {
  /** `http://127.0.0.1:PORT/` */
  url: string;
  close(): void;
}

export async function startAppPreview(outDir: string, port: number): Promise<AppPreview> {
  const url = `http://127.0.0.1:${port}/`;
  // Its own process group, so close() stops npx and the vite process under it.
  const child: ChildProcess = spawn(
    'npx',
    [
      'vite',
      'preview',
      '--outDir',
      outDir,
      '--port',
      String(port),
      '--strictPort',
      '--host',
      '127.0.0.1',
    ],
    { stdio: 'ignore', detached: true },
  );
  const close = (): void => {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
  };
  for (let attempt = 0; attempt < 120; attempt++) {
    try {
      if ((await fetch(url)).ok) return { url, close };
    } catch {
      // Not listening yet.
    }
    await new Promise((done) => setTimeout(done, 500));
  }
  close();
  throw new Error(`vite preview did not start on port ${port}`);
}
