// Calendar rules in Sri Lankan time. Asia/Colombo is UTC+05:30 all year (no daylight saving),
// so a fixed offset is exact.
export const COLOMBO_OFFSET_MS = (5 * 60 + 30) * 60 * 1000;

/** Midnight on the 1st of the month, Sri Lankan time, containing `at`; and the next such midnight. */
export function colomboMonth(at: Date): { start: Date; end: Date } {
  const local = new Date(at.getTime() + COLOMBO_OFFSET_MS);
  const year = local.getUTCFullYear();
  const month = local.getUTCMonth();
  return {
    start: new Date(Date.UTC(year, month, 1) - COLOMBO_OFFSET_MS),
    end: new Date(Date.UTC(year, month + 1, 1) - COLOMBO_OFFSET_MS),
  };
}

/** The API's timestamp form: ISO 8601 UTC with milliseconds. */
export function timestamp(at: Date): string;
export function timestamp(at: Date | null): string | null;
export function timestamp(at: Date | null): string | null {
  return at === null ? null : at.toISOString();
}
