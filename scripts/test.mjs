// `npm test`: install what is missing, then type check, lint and dependency advisories (side by
// side), unit and golden tests, production build and end-to-end tests. Every stage runs even when an earlier one
// failed, so one run shows everything that is wrong. The last line is `N passed, N failed,
// N skipped`: a test file that does not load counts as failed, and a stage that could not run
// counts as skipped with its reason printed, never as passed. Exits non-zero when anything failed.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { CHROMIUM_HINT, checkChromiumAge, findChromium } from './chromium.mjs';
import { ensureInstall } from './ensure-install.mjs';
import {
  SKIPPED_EXIT_CODE,
  playwrightCounts,
  playwrightFailures,
  playwrightListedCount,
  slowPlaywrightTests,
  vitestCounts,
  vitestFailures,
} from './test-counts.mjs';

ensureInstall();
mkdirSync('test-results', { recursive: true });

const totals = { passed: 0, failed: 0, skipped: 0 };
const startedAt = Date.now();
/** When the stage being run started: the summary gives each stage's time. */
let stageStartedAt = startedAt;
/** One line per stage for the summary: name, outcome, time and, for skips, why. */
const stageLines = [];
/** Each failed test, named, for the end of the log: a long log's tail is what people read. */
const failureLines = [];

function formatDuration(ms) {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

function run(name, command, args, env = {}) {
  stageStartedAt = Date.now();
  console.log(`\n━━ ${name}: ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  return result.status ?? 1;
}

/** Like run, for a short check whose output is kept too: a skip says why in its last line. */
function runCaptured(name, command, args) {
  stageStartedAt = Date.now();
  console.log(`\n━━ ${name}: ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, {
    stdio: ['inherit', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  process.stdout.write(result.stdout ?? '');
  const lastLine = (result.stdout ?? '').trim().split('\n').at(-1) ?? '';
  return { status: result.status ?? 1, lastLine };
}

function record(name, outcome, counts, reason, tookMs = Date.now() - stageStartedAt) {
  totals.passed += counts.passed;
  totals.failed += counts.failed;
  totals.skipped += counts.skipped;
  const took = formatDuration(tookMs);
  stageLines.push(`  ${outcome.padEnd(8)} ${name} · ${took}${reason ? ` (${reason})` : ''}`);
}

/** A stage without its own test count (type check, lint, build) counts as one check. */
function runCheck(name, command, args) {
  const { status, lastLine } = runCaptured(name, command, args);
  return recordCheck(name, status, lastLine);
}

function recordCheck(name, status, lastLine, tookMs) {
  if (status === SKIPPED_EXIT_CODE) {
    const reason = lastLine.replace(/^.*?skipped:\s*/, '') || 'see its output above';
    record(name, 'skipped', { passed: 0, failed: 0, skipped: 1 }, reason, tookMs);
    return false;
  }
  const ok = status === 0;
  record(
    name,
    ok ? 'passed' : 'FAILED',
    { passed: ok ? 1 : 0, failed: ok ? 0 : 1, skipped: 0 },
    undefined,
    tookMs,
  );
  return ok;
}

/**
 * Checks that each use one core (the type checkers, ESLint) run side by side; each one's output
 * is printed whole once it ends, in the order given, and each keeps its own time.
 */
async function runChecksSideBySide(checks) {
  const runs = checks.map(({ name, command, args }) => {
    const started = Date.now();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    return new Promise((resolve) => {
      child.on('error', (error) => {
        err.push(Buffer.from(`${error.message}\n`));
        resolve({ name, command, args, status: 1, out, err, tookMs: Date.now() - started });
      });
      child.on('close', (code) =>
        resolve({ name, command, args, status: code ?? 1, out, err, tookMs: Date.now() - started }),
      );
    });
  });
  for (const result of await Promise.all(runs)) {
    console.log(`\n━━ ${result.name}: ${result.command} ${result.args.join(' ')}`);
    const stdout = Buffer.concat(result.out).toString('utf8');
    process.stdout.write(stdout);
    process.stderr.write(Buffer.concat(result.err));
    const lastLine = stdout.trim().split('\n').at(-1) ?? '';
    recordCheck(result.name, result.status, lastLine, result.tookMs);
  }
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/** A runner's own counts, plus one failure when it exited non-zero without counting any. */
function recordRunner(name, status, counts) {
  const failed = counts.failed + (status !== 0 && counts.failed === 0 ? 1 : 0);
  const outcome = failed > 0 ? 'FAILED' : 'passed';
  record(
    name,
    outcome,
    { ...counts, failed },
    counts.skipped > 0 ? `${counts.skipped} skipped` : '',
  );
}

await runChecksSideBySide([
  { name: 'type check', command: 'npm', args: ['run', '--silent', 'check'] },
  { name: 'lint', command: 'npm', args: ['run', '--silent', 'lint'] },
  { name: 'dependency advisories', command: 'node', args: ['scripts/audit.mjs'] },
]);

const vitestJson = 'test-results/vitest.json';
rmSync(vitestJson, { force: true });
const vitestStatus = run('unit and golden tests', 'npx', [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${vitestJson}`,
]);
const vitestReport = readJson(vitestJson);
recordRunner('unit and golden tests', vitestStatus, vitestCounts(vitestReport));
if (vitestStatus !== 0) failureLines.push(...vitestFailures(vitestReport, process.cwd()));

const built = runCheck('production build', 'npx', ['vite', 'build', '--logLevel', 'warn']);

/** How many end-to-end tests there are, for reporting them as skipped when they cannot run. */
function listE2eTests() {
  const listed = spawnSync('npx', ['playwright', 'test', '--list', '--reporter=json'], {
    encoding: 'utf8',
    env: process.env,
  });
  const report = (() => {
    try {
      return JSON.parse(listed.stdout);
    } catch {
      return undefined;
    }
  })();
  return playwrightListedCount(report);
}

const chromium = await findChromium();
if (!chromium || !built) {
  const reason = !chromium ? CHROMIUM_HINT : 'the production build failed';
  stageStartedAt = Date.now();
  console.log(`\n━━ end-to-end tests: skipped: ${reason}`);
  const count = Math.max(listE2eTests(), 1);
  if (!chromium && process.env.CI) {
    // CI must run them: a machine without a browser there is a broken set-up, not a skip.
    record(
      'end-to-end tests',
      'FAILED',
      { passed: 0, failed: count, skipped: 0 },
      'no Chromium in CI',
    );
  } else {
    record(
      'end-to-end tests',
      'skipped',
      { passed: 0, failed: 0, skipped: count },
      !chromium ? 'no Chromium' : 'no build',
    );
  }
} else {
  const tooOld = checkChromiumAge(chromium);
  if (tooOld) console.log(`\nWarning: ${tooOld}`);
  const e2eJson = 'test-results/e2e.json';
  rmSync(e2eJson, { force: true });
  const status = run('end-to-end tests', 'npx', ['playwright', 'test', '--reporter=list,json'], {
    PLAYWRIGHT_JSON_OUTPUT_NAME: e2eJson,
    CARREL_CHROMIUM: chromium,
  });
  const report = readJson(e2eJson);
  recordRunner('end-to-end tests', status, playwrightCounts(report));
  if (status !== 0) {
    failureLines.push(...playwrightFailures(report));
    if (tooOld) failureLines.push(`(${tooOld})`);
  }
  const slow = slowPlaywrightTests(report);
  if (slow.length > 0)
    console.log(
      `\nEnd-to-end tests that took more than half of their time limit:\n  ${slow.join('\n  ')}`,
    );
}

if (failureLines.length > 0) console.log(`\nFailed:\n  ${failureLines.join('\n  ')}`);
console.log(
  `\nStages (${formatDuration(Date.now() - startedAt)} in all):\n${stageLines.join('\n')}`,
);
console.log(`\n${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed === 0 ? 0 : 1);
