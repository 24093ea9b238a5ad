/**
 * Where marks sit on a chart: the x pixel of a data value and the rectangle
 * of each bar. Shared by the base painter (which draws the marks) and the
 * overlay painter (which highlights one of them), so both agree exactly.
 */

import { fractionToPixel } from './geometry.js';

/**
 * The layout of a chart's marks inside a plot frame.
 * - Complexity: O(points) to find the narrowest gap between bars on
 *   continuous axes; O(1) per query afterwards.
 * @param {import('./model.js').ChartModel} model
 * @param {{x:number,y:number,width:number,height:number}} plot
 * @param {boolean} rtl
 */
export function markLayout(model, plot, rtl) {
  const seriesCount = Math.max(1, model.series.length);
  const groupWidth = model.kind === 'category'
    ? (plot.width / Math.max(1, model.categories.length)) * 0.8
    : continuousGroupWidth(model, plot);
  const barWidth = groupWidth / seriesCount;

  /** The x pixel of a data value's centre, or null for an unknown category. */
  const xPixel = (x) => {
    const f = model.fractionOf(x);
    return f === null ? null : fractionToPixel(plot, f, rtl);
  };

  /**
   * The horizontal extent of series `seriesIndex`'s bar at `x`; series sit
   * side by side within the group, mirrored for right-to-left.
   */
  const barAt = (seriesIndex, x) => {
    const centre = xPixel(x);
    if (centre === null) return null;
    const slot = rtl ? seriesCount - 1 - seriesIndex : seriesIndex;
    return { left: centre - groupWidth / 2 + slot * barWidth, width: barWidth, centre };
  };

  return { groupWidth, barWidth, xPixel, barAt };
}

/**
 * Bar group width on a time or linear axis: 70% of the narrowest gap between
 * neighbouring x values, no wider than the room the domain leaves around the
 * first and last points (not while zoomed: a view cuts bars at its edges),
 * between 2 and 48 px.
 */
function continuousGroupWidth(model, plot) {
  const [d0, d1] = model.domain;
  const span = d1 - d0;
  let gap = Infinity;
  for (const s of model.series) {
    for (let i = 1; i < s.points.length; i += 1) {
      const d = s.points[i][0] - s.points[i - 1][0];
      if (d > 0 && d < gap) gap = d;
    }
  }
  if (!(span > 0)) return 24;
  let width = Number.isFinite(gap) ? (gap / span) * plot.width * 0.7 : 24;
  if (model.view) return Math.max(2, Math.min(48, width));
  // Keep the outermost bars inside the server's domain (it pads e.g. half a day each side).
  let first = Infinity;
  let last = -Infinity;
  for (const s of model.series) {
    if (s.points.length === 0) continue;
    first = Math.min(first, s.points[0][0]);
    last = Math.max(last, s.points[s.points.length - 1][0]);
  }
  const room = Math.min(first - d0, d1 - last);
  if (Number.isFinite(room) && room > 0) width = Math.min(width, (2 * room / span) * plot.width);
  return Math.max(2, Math.min(48, width));
}
