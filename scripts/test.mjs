// `npm test`: install what is missing, then type check, lint, unit and golden tests, production
// build and end-to-end tests. Every stage runs even when an earlier one failed, so one run shows
// everything that is wrong; the last line is the summary `N passed, N failed`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { CHROMIUM_HINT, findChromium } from './chromium.mjs';
import { ensureInstall } from './ensure-install.mjs';

ensureInstall();
mkdirSync('test-results', { recursive: true });

const totals = { passed: 0, failed: 0 };
const failedStages = [];

function run(name, command, args, env = {}) {
  console.log(`\n━━ ${name}: ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  const ok = result.status === 0;
  if (!ok) failedStages.push(name);
  return ok;
}

/** A stage without its own test count (type check, lint, build) counts as one check. */
function runCheck(name, command, args) {
  const ok = run(name, command, args);
  totals[ok ? 'passed' : 'failed'] += 1;
  return ok;
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

runCheck('type check', 'npm', ['run', '--silent', 'check']);
runCheck('lint', 'npm', ['run', '--silent', 'lint']);
// Runtime dependencies with high/critical advisories fail; an unreachable audit endpoint is a skip.
runCheck('dependency advisories', 'node', ['scripts/audit.mjs']);

const vitestOk = run('unit and golden tests', 'npx', [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  '--outputFile.json=test-results/vitest.json',
]);
const vitest = readJson('test-results/vitest.json');
if (vitest) {
  totals.passed += vitest.numPassedTests ?? 0;
  totals.failed += vitest.numFailedTests ?? 0;
  if (!vitestOk && (vitest.numFailedTests ?? 0) === 0) totals.failed += 1;
} else if (!vitestOk) totals.failed += 1;

const built = runCheck('production build', 'npx', ['vite', 'build', '--logLevel', 'warn']);

const chromium = await findChromium();
if (!chromium) {
  console.error(`\n${CHROMIUM_HINT}`);
  failedStages.push('end-to-end tests (no Chromium)');
  totals.failed += 1;
} else if (!built) {
  console.error('\nEnd-to-end tests skipped: the production build failed.');
  totals.failed += 1;
} else {
  const e2eOk = run('end-to-end tests', 'npx', ['playwright', 'test', '--reporter=list,json'], {
    PLAYWRIGHT_JSON_OUTPUT_NAME: 'test-results/e2e.json',
    CARREL_CHROMIUM: chromium,
  });
  const e2e = readJson('test-results/e2e.json');
  const stats = e2e?.stats;
  if (stats) {
    totals.passed += (stats.expected ?? 0) + (stats.flaky ?? 0);
    totals.failed += stats.unexpected ?? 0;
    if (!e2eOk && (stats.unexpected ?? 0) === 0) totals.failed += 1;
  } else if (!e2eOk) totals.failed += 1;
}

if (failedStages.length > 0) console.log(`\nFailed stages: ${failedStages.join(', ')}`);
console.log(`\n${totals.passed} passed, ${totals.failed} failed`);
process.exit(failedStages.length === 0 && existsSync('dist/index.html') ? 0 : 1);
