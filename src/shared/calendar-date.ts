/**
 * Whether YYYY-MM-DD names a day of the calendar. `Date.parse` and `new Date` roll a day the month
 * does not have over into the next month (2026-02-31 is 3 March): a time a person typed is checked
 * with this first.
 */
export function isCalendarDate(date: string): boolean {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const calendar = new Date(0);
  calendar.setUTCFullYear(year, month - 1, day); // Date.UTC would read years 0-99 as 1900-1999
  return calendar.getUTCDate() === day;
}

const RFC_3339 =
  /^(\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:)([0-5]\d|60)((?:\.\d+)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d))$/i;

/**
 * The instant an RFC 3339 date-time names (§5.6: seconds required, `T` and `Z` in either case, a
 * leap second counting as the second after it), in Unix milliseconds; NaN for any other text.
 */
export function rfc3339TimeMs(text: string): number {
  const parts = RFC_3339.exec(text);
  if (parts === null || !isCalendarDate(parts[1]!.slice(0, 10))) return Number.NaN;
  const leap = parts[2] === '60';
  return Date.parse(`${parts[1]}${leap ? '59' : parts[2]}${parts[3]}`) + (leap ? 1000 : 0);
}
