/**
 * Paints a chart's base canvas: grid, axes with nice ticks and labels, the
 * marks (grouped bars, lines with points, points, areas) and the legend.
 * Called only when the chart's data, size or theme changed; selections live
 * on the overlay canvas. The y scale is exactly the server's `y.domain` (the
 * one its hit-testing uses); nothing is drawn before the first snapshot. A
 * chart whose snapshot has no points yet gets its axes and a "No data yet"
 * note; the legend lists every series the spec or the data named so far.
 * A zoomed viewer's x axis is its view's domain, labelled even where the view
 * holds no points ("No data in this view").
 */

import { niceTicks, timeTicks, yScale, fractionToPixel, categoryBand, continuousFraction } from './geometry.js';
import { formatNumber, formatTimeTick } from './format.js';
import { seriesColor, withAlpha } from './theme.js';
import { markLayout } from './marks.js';

export const FONT = '11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

/**
 * Paints the whole base layer.
 * @param {CanvasRenderingContext2D} ctx context already scaled to CSS px
 * @param {import('./model.js').ChartModel} model
 * @param {{width:number,height:number}} size canvas size in CSS px
 * @param {{x:number,y:number,width:number,height:number}} plot
 * @param {boolean} rtl
 * @param {ReturnType<import('./theme.js').currentTheme>} theme
 */
export function paintBase(ctx, model, size, plot, rtl, theme) {
  ctx.clearRect(0, 0, size.width, size.height);
  if (!model.drawable) return;
  ctx.font = FONT;
  ctx.direction = 'ltr';
  paintYAxis(ctx, model, plot, rtl, theme);
  paintXAxis(ctx, model, size, plot, rtl, theme);
  ctx.save();
  ctx.beginPath();
  ctx.rect(plot.x, plot.y - 4, plot.width, plot.height + 4);
  ctx.clip();
  const layout = markLayout(model, plot, rtl);
  const y = yScale(plot, model.yDomain);
  const mark = model.spec.mark ?? 'bar';
  if (mark === 'area') {
    // Every series' fill first, then the lines on top, so no fill tints another series' line.
    const floor = y(areaFloor(model.yDomain));
    model.series.forEach((series, index) => paintAreaFill(ctx, series, layout, y, floor, seriesColor(theme, index), theme));
  }
  model.series.forEach((series, index) => {
    const color = seriesColor(theme, index);
    if (mark === 'bar') paintBars(ctx, series, index, layout, y, model.yDomain, color);
    else paintLine(ctx, series, layout, y, color, mark === 'line' || mark === 'area');
  });
  ctx.restore();
  if (model.pointCount === 0) paintNoData(ctx, plot, theme, model.view ? 'No data in this view' : 'No data yet');
  paintLegend(ctx, model, size, plot, rtl, theme);
}

function paintYAxis(ctx, model, plot, rtl, theme) {
  const domain = model.yDomain;
  const y = yScale(plot, domain);
  const ticks = niceTicks(domain[0], domain[1], Math.max(2, Math.floor(plot.height / 40)));
  ctx.textBaseline = 'middle';
  ctx.textAlign = rtl ? 'left' : 'right';
  const labelX = rtl ? plot.x + plot.width + 6 : plot.x - 6;
  for (const t of ticks) {
    const py = Math.round(y(t)) + 0.5;
    ctx.strokeStyle = theme.grid;
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(plot.x, py);
    ctx.lineTo(plot.x + plot.width, py);
    ctx.stroke();
    ctx.fillStyle = theme.muted;
    ctx.fillText(formatNumber(t), labelX, py);
  }
}

function paintXAxis(ctx, model, size, plot, rtl, theme) {
  const bottom = plot.y + plot.height;
  ctx.strokeStyle = theme.axis;
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(plot.x, Math.round(bottom) + 0.5);
  ctx.lineTo(plot.x + plot.width, Math.round(bottom) + 0.5);
  ctx.stroke();
  ctx.fillStyle = theme.muted;
  ctx.textBaseline = 'top';
  ctx.textAlign = 'center';
  const labelY = bottom + 7;
  const place = (text, px) => {
    const w = ctx.measureText(text).width;
    const x = Math.max(w / 2 + 1, Math.min(size.width - w / 2 - 1, px));
    ctx.fillText(text, x, labelY);
  };
  const tick = (px) => {
    ctx.beginPath();
    ctx.moveTo(Math.round(px) + 0.5, bottom);
    ctx.lineTo(Math.round(px) + 0.5, bottom + 4);
    ctx.stroke();
  };
  if (model.kind === 'category') {
    const n = model.categories.length;
    if (n === 0) return;
    const step = plot.width / n;
    const full = Math.max(...model.categories.map((c) => ctx.measureText(String(c)).width));
    const short = (c) => String(c).slice(0, 3);
    const useShort = full > step - 6;
    const widest = useShort ? Math.max(...model.categories.map((c) => ctx.measureText(short(c)).width)) : full;
    const every = Math.max(1, Math.ceil((widest + 6) / step));
    model.categories.forEach((c, i) => {
      if (i % every !== 0) return;
      place(useShort ? short(c) : String(c), fractionToPixel(plot, categoryBand(i, n).centre, rtl));
    });
    return;
  }
  // Without points the server's live domain is a placeholder ([0, 1]): no labels to read off it.
  if (model.pointCount === 0 && !model.view) return;
  const domain = model.domain;
  const count = Math.max(2, Math.floor(plot.width / 55));
  let { ticks, step } = model.kind === 'time'
    ? timeTicks(domain, count)
    : { ticks: niceTicks(domain[0], domain[1], count), step: 0 };
  if (!(domain[1] > domain[0])) ticks = [domain[0]]; // a single x value: one tick, at the centre like its point
  for (const t of ticks) {
    const px = fractionToPixel(plot, continuousFraction(t, domain), rtl);
    tick(px);
    place(model.kind === 'time' ? formatTimeTick(t, step) : formatNumber(t), px);
  }
}

function paintBars(ctx, series, index, layout, y, domain, color) {
  const base = y(Math.max(domain[0], Math.min(domain[1], 0)));
  ctx.fillStyle = color;
  for (const [x, v] of series.points) {
    if (typeof v !== 'number') continue;
    const bar = layout.barAt(index, x);
    if (!bar) continue;
    const top = y(v);
    const inset = bar.width > 4 ? 0.5 : 0;
    ctx.fillRect(bar.left + inset, Math.min(top, base), Math.max(1, bar.width - 2 * inset), Math.abs(base - top));
  }
}

/**
 * The value an area is filled down to: 0 when the y domain contains it, else the domain's floor.
 * @param {[number, number]} domain
 */
export function areaFloor(domain) {
  const lo = Math.min(domain[0], domain[1]);
  const hi = Math.max(domain[0], domain[1]);
  return lo <= 0 && 0 <= hi ? 0 : lo;
}

/** The semi-transparent fill under one series' line, down to `floor` (a pixel row). */
function paintAreaFill(ctx, series, layout, y, floor, color, theme) {
  const pts = [];
  for (const [x, v] of series.points) {
    if (typeof v !== 'number') continue;
    const px = layout.xPixel(x);
    if (px !== null) pts.push([px, y(v)]);
  }
  if (pts.length < 2) return;
  ctx.fillStyle = withAlpha(color, theme.dark ? 0.35 : 0.28);
  ctx.beginPath();
  ctx.moveTo(pts[0][0], floor);
  for (const [px, py] of pts) ctx.lineTo(px, py);
  ctx.lineTo(pts[pts.length - 1][0], floor);
  ctx.closePath();
  ctx.fill();
}

function paintNoData(ctx, plot, theme, text) {
  ctx.fillStyle = theme.muted;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.fillText(text, plot.x + plot.width / 2, plot.y + plot.height / 2);
}

function paintLine(ctx, series, layout, y, color, joined) {
  const pts = [];
  for (const [x, v] of series.points) {
    if (typeof v !== 'number') continue;
    const px = layout.xPixel(x);
    if (px !== null) pts.push([px, y(v)]);
  }
  if (pts.length === 0) return;
  ctx.strokeStyle = color;
  ctx.fillStyle = color;
  if (joined && pts.length > 1) {
    ctx.lineWidth = 2;
    ctx.lineJoin = 'round';
    ctx.beginPath();
    pts.forEach(([px, py], i) => (i === 0 ? ctx.moveTo(px, py) : ctx.lineTo(px, py)));
    ctx.stroke();
  }
  let minGap = Infinity;
  for (let i = 1; i < pts.length; i += 1) minGap = Math.min(minGap, Math.abs(pts[i][0] - pts[i - 1][0]));
  const radius = joined ? (minGap >= 8 ? 3 : 2) : 3.5;
  for (const [px, py] of pts) {
    ctx.beginPath();
    ctx.arc(px, py, radius, 0, Math.PI * 2);
    ctx.fill();
  }
}

function paintLegend(ctx, model, size, plot, rtl, theme) {
  const y = 12;
  ctx.textBaseline = 'middle';
  ctx.font = FONT;
  const axisLabel = model.spec.y?.label;
  if (axisLabel) {
    ctx.fillStyle = theme.muted;
    ctx.textAlign = rtl ? 'right' : 'left';
    ctx.fillText(axisLabel, rtl ? size.width - 4 : 4, y);
  }
  const items = model.series.map((s, i) => ({ name: s.name, color: seriesColor(theme, i), w: ctx.measureText(s.name).width }));
  const swatch = 10;
  const gap = 14;
  const total = items.reduce((sum, it) => sum + swatch + 5 + it.w + gap, -gap);
  let x = rtl ? plot.x : plot.x + plot.width - total;
  ctx.textAlign = 'left';
  for (const it of items) {
    ctx.fillStyle = it.color;
    ctx.fillRect(x, y - swatch / 2, swatch, swatch);
    ctx.fillStyle = theme.text;
    ctx.fillText(it.name, x + swatch + 5, y);
    x += swatch + 5 + it.w + gap;
  }
}
