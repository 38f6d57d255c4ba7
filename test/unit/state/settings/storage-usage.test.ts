import { describe, expect, it } from 'vitest';
import { buildBackupFileName, describeStorageUsage, formatBytes } from '../../../../src/state/settings/storage-usage';

describe('storage usage', () => {
  it('formats sizes in decimal units', () => {
    expect(formatBytes(0)).toBe('0 bytes');
    expect(formatBytes(999)).toBe('999 bytes');
    expect(formatBytes(1_500)).toBe('1.5 kB');
    expect(formatBytes(12_400_000)).toBe('12 MB');
    expect(formatBytes(2_100_000_000)).toBe('2.1 GB');
  });

  it('summarises usage against the quota, with a warning flag passed through', () => {
    expect(describeStorageUsage({ usage: 850, quota: 1_000, ratio: 0.85, isNearlyFull: true })).toEqual({
      summary: '850 bytes of 1.0 kB (85%)',
      ratio: 0.85,
      isNearlyFull: true,
    });
    expect(describeStorageUsage({ usage: 5_000, quota: 10_000_000, ratio: 0.0005, isNearlyFull: false }).summary).toBe(
      '5.0 kB of 10 MB (0.1%)',
    );
  });

  it('shows only the usage when the browser reports no quota', () => {
    expect(describeStorageUsage({ usage: 2_000, quota: 0, ratio: 0, isNearlyFull: false })).toEqual({
      summary: '2.0 kB used',
      ratio: 0,
      isNearlyFull: false,
    });
  });

  it('dates the backup file name', () => {
    expect(buildBackupFileName(new Date(2025, 0, 9))).toBe('carrel-backup-2025-01-09.jsonl');
  });
});
