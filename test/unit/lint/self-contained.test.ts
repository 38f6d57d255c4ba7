import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROVIDER_FIXTURES_DIR } from '../../mock-llm/fixtures';

/**
 * A clone with nothing beside it must build, run and pass its tests: no file of the project
 * may reach outside the repository for data (the sibling folder the recorded streams were first
 * copied from exists on the maintainers' machines, not on a user's).
 */

const root = process.cwd();
// Spelled in pieces so that this file does not match its own search.
const OUTSIDE_PATTERNS = [['..', 'shared'].join('/'), ['CARREL', 'SHARED', 'DIR'].join('_')];
/** Prose may tell the history; code, config and scripts may not read outside the repo. */
const PROSE = /\.(md|txt)$/;

function trackedFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  });
  return out.split('\0').filter((file) => file !== '' && !PROSE.test(file));
}

describe('the repository is self-contained', () => {
  it('no source, test, script or config file reads outside the repository', () => {
    const offenders: string[] = [];
    for (const file of trackedFiles()) {
      let text: string;
      try {
        text = readFileSync(join(root, file), 'utf8');
      } catch {
        continue; // deleted in the working tree
      }
      for (const pattern of OUTSIDE_PATTERNS)
        if (text.includes(pattern)) offenders.push(`${file} (${pattern})`);
    }
    expect(offenders).toEqual([]);
  });

  it('ships every recorded provider fixture its manifest lists, byte for byte', () => {
    const manifest = JSON.parse(readFileSync(join(PROVIDER_FIXTURES_DIR, 'manifest.json'), 'utf8')) as {
      fixtures: { file: string; bytes: number; sha256: string }[];
    };
    expect(manifest.fixtures.length).toBeGreaterThan(20);
    for (const fixture of manifest.fixtures) {
      const bytes = readFileSync(join(PROVIDER_FIXTURES_DIR, fixture.file));
      expect({ file: fixture.file, bytes: bytes.length }).toEqual({
        file: fixture.file,
        bytes: fixture.bytes,
      });
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(fixture.sha256);
    }
  });
});
