/** Placeholders that work in our prompt and in every user-written prompt (agent, project, override). */

export interface PlaceholderValues {
  now: number;
  timeZone: string;
  userName?: string;
  /**
   * `{{CURRENT_DATETIME}}` gives the day only: the start of a cache-friendly request then
   * changes once a day, not every minute (the time goes at the end, in the reminder).
   */
  isDateOnly?: boolean;
}

const DATE_LOCALE = 'en-US';
const UNKNOWN_USER_NAME = 'the user';

// Building a formatter costs far more than formatting (it resolves locale data), and the date
// goes into every request: one formatter per time zone, kept for the worker's life.
const dateFormats = new Map<string, Intl.DateTimeFormat>();
const timeFormats = new Map<string, Intl.DateTimeFormat>();

function getFormat(
  cache: Map<string, Intl.DateTimeFormat>,
  timeZone: string,
  options: Intl.DateTimeFormatOptions,
): Intl.DateTimeFormat {
  let format = cache.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat(DATE_LOCALE, { ...options, timeZone });
    cache.set(timeZone, format);
  }
  return format;
}

/** "Saturday November 21, 2026" in the user's time zone. */
export function formatCurrentDate(now: number, timeZone: string): string {
  const parts = getFormat(dateFormats, timeZone, {
    weekday: 'long',
    month: 'long',
    day: 'numeric',
    year: 'numeric',
  }).formatToParts(now);
  const pick = (type: Intl.DateTimeFormatPartTypes): string =>
    parts.find((part) => part.type === type)?.value ?? '';
  return `${pick('weekday')} ${pick('month')} ${pick('day')}, ${pick('year')}`;
}

/** "Saturday November 21, 2026, 11:00 (Europe/Paris)". */
export function formatCurrentDateTime(now: number, timeZone: string): string {
  const time = getFormat(timeFormats, timeZone, {
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(now);
  return `${formatCurrentDate(now, timeZone)}, ${time} (${timeZone})`;
}

/** Replaces `{{CURRENT_DATETIME}}`, `{{CURRENT_DATE}}` and `{{user.name}}`; leaves others as written. */
export function expandPlaceholders(text: string, values: PlaceholderValues): string {
  return text.replace(/\{\{\s*([A-Za-z_.]+)\s*\}\}/g, (whole, name: string) => {
    switch (name) {
      case 'CURRENT_DATETIME':
        return values.isDateOnly === true
          ? `${formatCurrentDate(values.now, values.timeZone)} (${values.timeZone})`
          : formatCurrentDateTime(values.now, values.timeZone);
      case 'CURRENT_DATE':
        return formatCurrentDate(values.now, values.timeZone);
      case 'user.name':
        return values.userName ?? UNKNOWN_USER_NAME;
      default:
        return whole;
    }
  });
}
