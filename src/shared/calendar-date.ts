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
