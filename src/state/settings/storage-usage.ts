/** What the storage meter shows, from `estimateStorage`'s report. */
export interface StorageUsageView {
  /** e.g. "12.4 MB of 2.1 GB (0.6%)", or "12.4 MB used" when the browser reports no quota. */
  summary: string;
  /** 0..1 for the meter. */
  ratio: number;
  isNearlyFull: boolean;
}

const UNITS = ['bytes', 'kB', 'MB', 'GB', 'TB'] as const;
const BYTES_PER_UNIT = 1000;

/** Decimal units, as browsers and operating systems show disk space. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < BYTES_PER_UNIT) return `${Math.max(0, Math.round(bytes))} bytes`;
  let value = bytes;
  let unit = 0;
  while (value >= BYTES_PER_UNIT && unit < UNITS.length - 1) {
    value /= BYTES_PER_UNIT;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${UNITS[unit] ?? 'TB'}`;
}

export function describeStorageUsage(report: {
  usage: number;
  quota: number;
  ratio: number;
  isNearlyFull: boolean;
}): StorageUsageView {
  const ratio = Math.min(1, Math.max(0, report.ratio));
  if (report.quota <= 0) {
    return { summary: `${formatBytes(report.usage)} used`, ratio: 0, isNearlyFull: false };
  }
  const percent = ratio * 100;
  return {
    summary: `${formatBytes(report.usage)} of ${formatBytes(report.quota)} (${percent < 1 ? percent.toFixed(1) : Math.round(percent)}%)`,
    ratio,
    isNearlyFull: report.isNearlyFull,
  };
}

/** The backup file's name, dated so several exports do not overwrite each other. */
export function buildBackupFileName(now: Date): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `carrel-backup-${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}.jsonl`;
}
