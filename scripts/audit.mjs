// `npm audit` for runtime dependencies: any high or critical advisory fails. When the registry's
// audit endpoint cannot be reached or refuses the request (offline CI, a proxy that blocks it, a
// registry mirror that answers 405), the check says why and exits with the "skipped" code, which
// `npm test` counts as skipped, never as passed.
import { spawnSync } from 'node:child_process';
import { SKIPPED_EXIT_CODE } from './test-counts.mjs';

const FAILING_SEVERITIES = ['high', 'critical'];
/** npm's messages when it could not talk to the audit endpoint at all. */
const UNREACHABLE_PATTERN =
  /ENOTFOUND|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EAI_AGAIN|network|audit endpoint returned an error|request to .* failed|\b(404|405|501|502|503) /i;

const result = spawnSync('npm', ['audit', '--omit=dev', '--json'], { encoding: 'utf8', timeout: 120_000 });
let report;
try {
  report = JSON.parse(result.stdout || '{}');
} catch {
  report = undefined;
}

const errorText = `${report?.message ?? ''} ${report?.error?.summary ?? ''} ${report?.error?.detail ?? ''} ${result.stderr ?? ''} ${result.error?.message ?? ''}`;
if (report === undefined || report.error !== undefined || result.error !== undefined) {
  if (UNREACHABLE_PATTERN.test(errorText) || result.error !== undefined) {
    const why = report?.message ?? result.error?.message ?? 'the audit endpoint could not be reached';
    console.log(`npm audit (runtime dependencies): skipped: ${why}`);
    process.exit(SKIPPED_EXIT_CODE);
  }
  console.error(`npm audit failed: ${errorText.trim()}`);
  process.exit(1);
}

const counts = report.metadata?.vulnerabilities ?? {};
const failing = FAILING_SEVERITIES.reduce((sum, severity) => sum + (counts[severity] ?? 0), 0);
const names = Object.values(report.vulnerabilities ?? {})
  .filter((entry) => FAILING_SEVERITIES.includes(entry.severity))
  .map((entry) => `${entry.name} (${entry.severity})`);
console.log(
  `npm audit (runtime dependencies): ${failing} high/critical` +
    ` (low ${counts.low ?? 0}, moderate ${counts.moderate ?? 0}, high ${counts.high ?? 0}, critical ${counts.critical ?? 0})`,
);
if (failing > 0) {
  console.error(`High or critical advisories in runtime dependencies: ${names.join(', ')}`);
  process.exit(1);
}
