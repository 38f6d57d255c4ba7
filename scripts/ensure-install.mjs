// Installs dependencies when node_modules is missing or older than the lockfile, so that
// `npm start` and `npm test` work on a fresh clone with nothing but Node and npm.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const stampPath = join(root, 'node_modules', '.carrel-install-stamp');

function lockHash() {
  const lock = join(root, 'package-lock.json');
  const source = existsSync(lock) ? readFileSync(lock) : readFileSync(join(root, 'package.json'));
  return createHash('sha256').update(source).digest('hex');
}

export function ensureInstall() {
  const wanted = lockHash();
  const current = existsSync(stampPath) ? readFileSync(stampPath, 'utf8').trim() : '';
  if (current === wanted && existsSync(join(root, 'node_modules', '.bin', 'vite'))) return;
  // `npm install` rather than `npm ci`: it keeps the lockfile's versions, and npm's lockfiles
  // miss other platforms' optional binaries (npm/cli#4828), which makes `npm ci` refuse them.
  const args = ['install', '--no-audit', '--no-fund'];
  console.log('Installing dependencies (npm install)…');
  // onnxruntime-node (used by Node tests, on the CPU) would otherwise look for `nvcc` and try to
  // download CUDA binaries from GitHub, which fails where only the npm registry is reachable.
  const env = {
    ...process.env,
    ONNXRUNTIME_NODE_INSTALL_CUDA: 'skip',
    ONNXRUNTIME_NODE_INSTALL: 'skip',
  };
  const result = spawnSync('npm', args, { cwd: root, stdio: 'inherit', env });
  if (result.status !== 0) {
    console.error('Dependency installation failed; see the npm output above.');
    process.exit(result.status ?? 1);
  }
  writeFileSync(stampPath, wanted);
}

if (import.meta.url === `file://${process.argv[1]}`) ensureInstall();
