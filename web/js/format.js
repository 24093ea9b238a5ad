/**
 * Formatting of numbers, dates and x values for labels, annotations and
 * screen-reader text. Dates are shown in UTC so every viewer reads the same
 * day the server computed, whatever the browser's time zone.
 */

const integerFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const decimalFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });
const preciseFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun',
  'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export const DAY_MS = 86_400_000;

/**
 * Formats a value for display: thousands separators, at most one decimal for
 * values of 100 or more, two below ("1,900", "36.55", "0.25").
 * @param {number|null|undefined} value
 * @returns {string}
 */
export function formatNumber(value) {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  const magnitude = Math.abs(value);
  if (Number.isInteger(value)) return integerFormat.format(value);
  return magnitude >= 100 ? decimalFormat.format(value) : preciseFormat.format(value);
}

/**
 * Formats an epoch-milliseconds time as "May 3" (short month and day, UTC).
 * @param {number} ms
 * @returns {string}
 */
export function formatDay(ms) {
  const d = new Date(ms);
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`;
}

/**
 * Formats an epoch-milliseconds time as "May 3 14:05" (UTC).
 * @param {number} ms
 * @returns {string}
 */
export function formatDayTime(ms) {
  const d = new Date(ms);
  return `${formatDay(ms)} ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}`;
}

/**
 * Formats a tick on a time axis for the given tick interval.
 * @param {number} ms tick position
 * @param {number} stepMs interval between ticks
 * @returns {string}
 */
export function formatTimeTick(ms, stepMs) {
  const d = new Date(ms);
  if (stepMs >= 360 * DAY_MS) return String(d.getUTCFullYear());
  if (stepMs >= 28 * DAY_MS) return `${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
  if (stepMs >= DAY_MS) return formatDay(ms);
  if (stepMs < 60_000) return `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}`;
  return `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}`;
}

/**
 * Formats an x value of the given axis kind: categories as they are, times as
 * "May 3" (with the time of day when it is not midnight, and its seconds when
 * not whole minutes: "May 3 14:05:09"), numbers as numbers.
 * @param {string|number} x
 * @param {'category'|'time'|'linear'} kind
 * @returns {string}
 */
export function formatX(x, kind) {
  if (kind === 'time') {
    const d = new Date(x);
    const midnight = d.getUTCHours() === 0 && d.getUTCMinutes() === 0 && d.getUTCSeconds() === 0;
    if (midnight) return formatDay(x);
    return d.getUTCSeconds() === 0 ? formatDayTime(x) : `${formatDayTime(x)}:${pad2(d.getUTCSeconds())}`;
  }
  if (kind === 'linear') return formatNumber(Number(x));
  return String(x);
}

/**
 * Formats the bound of a dragged range: a day for time axes (the pointer's
 * day, as in "Selection: May 3 – May 15"), a number for linear axes.
 * @param {string|number} x
 * @param {'category'|'time'|'linear'} kind
 * @returns {string}
 */
export function formatRangeBound(x, kind) {
  if (kind === 'time') return formatDay(x);
  return formatX(x, kind);
}

/**
 * Formats a wall-clock time for "last update" labels, in the viewer's zone.
 * @param {Date} date
 * @returns {string}
 */
export function formatClock(date) {
  return `${pad2(date.getHours())}:${pad2(date.getMinutes())}:${pad2(date.getSeconds())}`;
}

function pad2(n) {
  return n < 10 ? `0${n}` : String(n);
}
