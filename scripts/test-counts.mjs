// Reading the test runners' JSON reports into the closing line's counts, shared by
// scripts/test.mjs and its unit test.

import { basename } from 'node:path';

/** The exit code a check uses to say it could not run at all (automake's convention). */
export const SKIPPED_EXIT_CODE = 77;

const NO_REPORT = { passed: 0, failed: 1, skipped: 0 };

/**
 * Vitest's JSON report. A test file that failed to load or collect has status "failed" and no
 * failed test in it: it counts as one failure, since the tests it holds never ran.
 */
export function vitestCounts(report) {
  if (report === undefined || report === null) return NO_REPORT;
  const files = Array.isArray(report.testResults) ? report.testResults : [];
  const brokenFiles = files.filter(
    (file) =>
      file.status === 'failed' &&
      !(file.assertionResults ?? []).some((test) => test.status === 'failed'),
  ).length;
  return {
    passed: report.numPassedTests ?? 0,
    failed: (report.numFailedTests ?? 0) + brokenFiles,
    skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
  };
}

function* playwrightTests(suites) {
  for (const suite of suites ?? []) {
    for (const spec of suite.specs ?? []) yield* spec.tests ?? [];
    yield* playwrightTests(suite.suites);
  }
}

/**
 * Playwright's JSON report: its stats, plus each error outside a test (a spec file that does
 * not load, a global set-up that throws) as one failure.
 */
export function playwrightCounts(report) {
  if (report === undefined || report === null || report.stats === undefined) return NO_REPORT;
  const { stats } = report;
  const loadErrors = Array.isArray(report.errors) ? report.errors.length : 0;
  return {
    passed: (stats.expected ?? 0) + (stats.flaky ?? 0),
    failed: (stats.unexpected ?? 0) + loadErrors,
    skipped: stats.skipped ?? 0,
  };
}

/** How many tests a `playwright test --list --reporter=json` report names. */
export function playwrightListedCount(report) {
  return [...playwrightTests(report?.suites)].length;
}

/**
 * Tests of a Playwright run that took more than half of their timeout, slowest first, as
 * "title (12.3 of 30 s)": a test that close to its limit fails on a busier machine.
 */
export function slowPlaywrightTests(report) {
  const slow = [];
  function visit(suites) {
    for (const suite of suites ?? []) {
      for (const spec of suite.specs ?? []) {
        for (const test of spec.tests ?? []) {
          const duration = Math.max(
            0,
            ...(test.results ?? []).map((result) => result.duration ?? 0),
          );
          if (test.timeout > 0 && duration > test.timeout / 2)
            slow.push({ title: `${spec.file}: ${spec.title}`, duration, timeout: test.timeout });
        }
      }
      visit(suite.suites);
    }
  }
  visit(report?.suites);
  return slow
    .sort((a, b) => b.duration - a.duration)
    .map(
      ({ title, duration, timeout }) =>
        `${title} (${(duration / 1000).toFixed(1)} of ${timeout / 1000} s)`,
    );
}

/** The first line of a failure message, short enough for the closing summary. */
const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

function firstLine(message) {
  const line = String(message ?? '')
    .replace(ANSI_COLOUR, '')
    .split('\n')
    .map((part) => part.trim())
    .find((part) => part !== '');
  if (line === undefined) return 'no message';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/**
 * What failed in a Vitest JSON report, one line each ("file › test: first line of the error"),
 * so the end of a long log says which test to look at. A file that did not load is named with
 * its load error.
 */
export function vitestFailures(report, root = '') {
  if (report === undefined || report === null) return ['no Vitest report was written'];
  const relative = (name) =>
    root !== '' && String(name).startsWith(root)
      ? String(name).slice(root.length).replace(/^\//, '')
      : String(name);
  const lines = [];
  for (const file of Array.isArray(report.testResults) ? report.testResults : []) {
    const failedTests = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
    for (const test of failedTests)
      lines.push(
        `${relative(file.name)} › ${test.fullName ?? test.title}: ${firstLine(test.failureMessages?.[0])}`,
      );
    if (file.status === 'failed' && failedTests.length === 0)
      lines.push(`${relative(file.name)} did not load: ${firstLine(file.message)}`);
  }
  return lines;
}

/** What failed in a Playwright JSON report, one line each, load errors included. */
/**
 * Where a failed Playwright test was when it stopped: each error's line in the spec and the
 * start of its call log (what the action was waiting for). A timeout's own message says only
 * "Test timeout exceeded"; these lines say which step hung, in a log of which only the end may
 * be kept.
 */
function whereItStopped(errors, headline) {
  const MAX_LINES = 6;
  const lines = [];
  for (const error of errors) {
    const text = String(error?.message ?? '').replace(ANSI_COLOUR, '');
    const isHeadline = firstLine(text) === firstLine(headline);
    const where = error?.location
      ? `${basename(String(error.location.file))}:${error.location.line}`
      : undefined;
    if (where === undefined && isHeadline) continue;
    if (where === undefined) lines.push(`  ${firstLine(text)}`);
    else lines.push(isHeadline ? `  at ${where}` : `  at ${where}: ${firstLine(text)}`);
    const log = text.split('\n');
    const start = log.findIndex((line) => line.trim().toLowerCase() === 'call log:');
    if (start < 0) continue;
    for (const line of log.slice(start + 1)) {
      if (!line.trim().startsWith('- ')) break;
      lines.push(`    ${firstLine(line)}`);
    }
  }
  return lines.slice(0, MAX_LINES);
}

export function playwrightFailures(report) {
  if (report === undefined || report === null || report.stats === undefined)
    return ['no Playwright report was written'];
  const lines = (Array.isArray(report.errors) ? report.errors : []).map(
    (error) => `did not load: ${firstLine(error.message)}`,
  );
  function visit(suites) {
    for (const suite of suites ?? []) {
      for (const spec of suite.specs ?? []) {
        for (const test of spec.tests ?? []) {
          if (test.status !== 'unexpected') continue;
          const last = (test.results ?? []).at(-1);
          const error = last?.error ?? last?.errors?.[0];
          lines.push(`${spec.file}: ${spec.title}: ${firstLine(error?.message)}`);
          lines.push(...whereItStopped(last?.errors ?? [], error?.message));
        }
      }
      visit(suite.suites);
    }
  }
  visit(report.suites);
  return lines;
}
