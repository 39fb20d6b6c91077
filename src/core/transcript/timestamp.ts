// Transcript timestamps → epoch milliseconds. Claude Code writes every one as
// `YYYY-MM-DDTHH:MM:SS.mmmZ`; reading that form by its digits costs a fraction
// of `Date.parse`, which showed in an export's profile. Any other form, and any
// digit out of the plain ranges, goes to `Date.parse`: the result is always
// exactly what `Date.parse` returns.

/** Value of the digits at [from, from + count), or -1 if one is not a digit. */
function digits(s: string, from: number, count: number): number {
  let n = 0;
  for (let i = from; i < from + count; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (days past the month's end roll over, as in Date). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra =
    yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

/** The canonical form's time, or NaN when the string is not in it. */
function canonicalTime(s: string): number {
  if (s.length !== 24) return Number.NaN;
  if (s[4] !== '-' || s[7] !== '-' || s[10] !== 'T' || s[13] !== ':' || s[16] !== ':')
    return Number.NaN;
  if (s[19] !== '.' || s[23] !== 'Z') return Number.NaN;
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 2);
  const day = digits(s, 8, 2);
  const hour = digits(s, 11, 2);
  const minute = digits(s, 14, 2);
  const second = digits(s, 17, 2);
  const ms = digits(s, 20, 3);
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > 31) return Number.NaN;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59 || ms < 0)
    return Number.NaN;
  const days = daysFromCivil(year, month, day);
  return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + ms;
}

/** Epoch milliseconds of a timestamp string, exactly as `Date.parse` reads it. */
export function timestampMs(s: string): number {
  const fast = canonicalTime(s);
  return Number.isNaN(fast) ? Date.parse(s) : fast;
}
