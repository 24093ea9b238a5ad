/**
 * Chart geometry shared with the server's selection engine ("Geometry" in the
 * design brief): the plot frame inside a canvas, x fractions for category,
 * time and linear axes, the y scale, and nice ticks.
 *
 * All coordinates are CSS pixels from the canvas's top-left corner. A
 * `fraction` is always left-to-right in data order; right-to-left pages
 * mirror it when turning it into a pixel, exactly as the server mirrors
 * pointer positions for viewports sent with `rtl: true`.
 */

import { DAY_MS } from './format.js';

/** Space around the plot for the legend, the axes and their labels. */
const MARGIN = { top: 28, bottom: 26, axis: 52, far: 14 };

/**
 * Computes the plot frame for a canvas of the given size.
 * The y axis sits on the start side: left for LTR, right for RTL.
 * @param {number} width canvas width in CSS px
 * @param {number} height canvas height in CSS px
 * @param {boolean} rtl
 * @returns {{x:number,y:number,width:number,height:number}}
 */
export function plotFrame(width, height, rtl) {
  const left = rtl ? MARGIN.far : MARGIN.axis;
  const right = rtl ? MARGIN.axis : MARGIN.far;
  return {
    x: left,
    y: MARGIN.top,
    width: Math.max(1, Math.round(width - left - right)),
    height: Math.max(1, Math.round(height - MARGIN.top - MARGIN.bottom)),
  };
}

/**
 * Maps an x fraction (0…1, data order) to a canvas x pixel.
 * @param {{x:number,width:number}} plot
 * @param {number} fraction
 * @param {boolean} rtl
 * @returns {number}
 */
export function fractionToPixel(plot, fraction, rtl) {
  const f = rtl ? 1 - fraction : fraction;
  return plot.x + f * plot.width;
}

/**
 * The fraction of a category's band: `[i, i+1) / n`, centre `(i + 0.5) / n`.
 * @param {number} index
 * @param {number} count
 * @returns {{start:number,centre:number,end:number}}
 */
export function categoryBand(index, count) {
  const n = Math.max(1, count);
  return { start: index / n, centre: (index + 0.5) / n, end: (index + 1) / n };
}

/**
 * Converts a band given in fractions to a pixel span `[left, right]`,
 * mirrored for RTL so `left < right` always holds.
 * @param {{x:number,width:number}} plot
 * @param {number} startFraction
 * @param {number} endFraction
 * @param {boolean} rtl
 * @returns {{left:number,right:number}}
 */
export function bandToPixels(plot, startFraction, endFraction, rtl) {
  const a = fractionToPixel(plot, startFraction, rtl);
  const b = fractionToPixel(plot, endFraction, rtl);
  return { left: Math.min(a, b), right: Math.max(a, b) };
}

/**
 * The fraction of a time or linear x value inside the server's domain,
 * `(x − d0) / (d1 − d0)`, with no padding of the page's own.
 * @param {number} x
 * @param {[number, number]} domain
 * @returns {number}
 */
export function continuousFraction(x, domain) {
  const span = domain[1] - domain[0];
  return span === 0 ? 0.5 : (x - domain[0]) / span;
}

/**
 * A linear y scale from a value domain onto the plot's height (top = max); a
 * domain of one value puts everything at mid-height.
 * @param {{y:number,height:number}} plot
 * @param {[number, number]} domain
 * @returns {(value:number) => number}
 */
export function yScale(plot, domain) {
  const [d0, d1] = domain;
  const span = d1 - d0;
  if (!(span !== 0 && Number.isFinite(span))) return () => plot.y + plot.height / 2; // a single value: mid-height
  return (value) => plot.y + plot.height * (1 - (value - d0) / span);
}

/**
 * The step between nice ticks (1, 2 or 5 × a power of ten), as in d3's
 * `tickIncrement`.
 * @param {number} start
 * @param {number} stop
 * @param {number} count desired number of ticks
 * @returns {number}
 */
export function tickStep(start, stop, count) {
  const raw = Math.abs(stop - start) / Math.max(1, count);
  if (!(raw > 0) || !Number.isFinite(raw)) return 1;
  const power = Math.pow(10, Math.floor(Math.log10(raw)));
  const error = raw / power;
  const factor = error >= Math.sqrt(50) ? 10 : error >= Math.sqrt(10) ? 5 : error >= Math.sqrt(2) ? 2 : 1;
  return factor * power;
}

/**
 * Nice ticks inside `[start, stop]`.
 * - Complexity: O(number of ticks).
 * @param {number} start
 * @param {number} stop
 * @param {number} count desired number of ticks
 * @returns {number[]}
 */
export function niceTicks(start, stop, count) {
  const lo = Math.min(start, stop);
  const hi = Math.max(start, stop);
  const step = tickStep(lo, hi, count);
  const first = Math.ceil(lo / step);
  const last = Math.floor(hi / step);
  const ticks = [];
  for (let i = first; i <= last && ticks.length < 100; i += 1) {
    ticks.push(Number((i * step).toPrecision(12)));
  }
  return ticks;
}

const TIME_STEPS = [
  1_000, 5_000, 15_000, 30_000, 60_000, 300_000, 900_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000, 43_200_000,
  DAY_MS, 2 * DAY_MS, 7 * DAY_MS, 14 * DAY_MS,
];

/**
 * Ticks for a time axis: UTC-aligned seconds, minutes, hours, days or weeks,
 * or the first of each month (or year) for long spans, at most about `count`
 * of them. A span shorter than a second between two whole seconds (points
 * written a moment apart) gets one tick, at its middle.
 * - Complexity: O(number of ticks).
 * @param {[number, number]} domain epoch ms
 * @param {number} count desired number of ticks
 * @returns {{ticks:number[], step:number}}
 */
export function timeTicks(domain, count) {
  const [d0, d1] = domain;
  const span = d1 - d0;
  if (!(span > 0)) return { ticks: [d0], step: DAY_MS };
  const wanted = span / Math.max(1, count);
  const step = TIME_STEPS.find((s) => s >= wanted);
  if (step !== undefined) {
    const ticks = [];
    for (let t = Math.ceil(d0 / step) * step; t <= d1 && ticks.length < 200; t += step) ticks.push(t);
    if (ticks.length === 0) ticks.push(Math.round((d0 + d1) / 2));
    return { ticks, step };
  }
  const months = [1, 3, 6, 12].find((m) => m * 30 * DAY_MS >= wanted) ?? Math.ceil(wanted / (365 * DAY_MS)) * 12;
  const start = new Date(d0);
  let year = start.getUTCFullYear();
  let month = Math.ceil(start.getUTCMonth() / months) * months;
  const ticks = [];
  for (;;) {
    const t = Date.UTC(year, month, 1);
    if (t > d1 || ticks.length >= 200) break;
    if (t >= d0) ticks.push(t);
    month += months;
    if (month >= 12) { year += Math.floor(month / 12); month %= 12; }
  }
  return { ticks, step: months * 30 * DAY_MS };
}
