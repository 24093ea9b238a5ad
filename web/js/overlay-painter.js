/**
 * Paints the shared selection on a chart's overlay canvas: every viewer's
 * hover (band or rule plus an annotation on the side the server chose), the
 * scrub (rule, capsule, highlighted bar), the dragged range and the pin.
 * Lines, points and areas get the same markers: a rule and a dot per value.
 * Positions come from the server's fractions (those of the live window),
 * mirrored for right-to-left; while this viewer is zoomed they come from the
 * selections' data values through its view's domain instead, and what lies
 * outside the view is left out (a range is cut at its edges).
 */

import { fractionToPixel, bandToPixels, categoryBand, yScale } from './geometry.js';
import { formatNumber, formatX, formatRangeBound } from './format.js';
import { seriesColor, withAlpha } from './theme.js';
import { markLayout } from './marks.js';
import { FONT } from './base-painter.js';
import { V1_LIMITS } from './limits.js';

const PIN_BOX_WIDTH = 150;
const LINE_HEIGHT = 15;

/**
 * Paints the whole overlay layer.
 * @param {CanvasRenderingContext2D} ctx context already scaled to CSS px
 * @param {import('./model.js').ChartModel} model
 * @param {{width:number,height:number}} size
 * @param {{x:number,y:number,width:number,height:number}} plot
 * @param {boolean} rtl
 * @param {ReturnType<import('./theme.js').currentTheme>} theme
 * @param {(id:string) => {name:string,color:string}} viewerOf
 * @param {number} maxHovers the most hovers drawn (`welcome.limits.maxHovers`; protocol v1's 8 without it)
 */
export function paintOverlay(ctx, model, size, plot, rtl, theme, viewerOf, maxHovers = V1_LIMITS.maxHovers) {
  ctx.clearRect(0, 0, size.width, size.height);
  if (!model.drawable) return;
  ctx.font = FONT;
  ctx.direction = 'ltr';
  const env = { ctx, model, size, plot, rtl, theme, viewerOf, layout: markLayout(model, plot, rtl), y: yScale(plot, model.yDomain) };
  const sel = model.selection;
  if (sel.range) paintRange(env, sel.range);
  const cap = Number.isFinite(maxHovers) && maxHovers > 0 ? Math.floor(maxHovers) : V1_LIMITS.maxHovers;
  const hovers = sel.hovers.slice(0, cap).filter((h) => placed(env, h.x, h.fraction) !== null);
  for (let i = hovers.length - 1; i >= 0; i -= 1) paintHover(env, hovers[i], i);
  if (sel.scrub && placed(env, sel.scrub.x, sel.scrub.fraction) !== null) paintScrub(env, sel.scrub);
  if (sel.pin && placed(env, sel.pin.x, sel.pin.fraction) !== null) paintPin(env, sel.pin);
}

/** How far a view's edge may be from a mark still drawn on it, as a fraction of the plot. */
const VIEW_EDGE = 1e-6;

/**
 * The data-order fraction a selection at `x` is drawn at: the server's `fraction` while live,
 * `x` through the view's domain while zoomed (null when outside it).
 */
function placed(env, x, fraction) {
  const { model } = env;
  if (!model.view || model.kind === 'category') return fraction ?? 0;
  const f = model.fractionOf(x);
  return Number.isFinite(f) && f >= -VIEW_EDGE && f <= 1 + VIEW_EDGE ? f : null;
}

/**
 * A range's ends as data-order fractions: the server's while live; while zoomed, `from`/`to`
 * through the view cut at its edges (null when the range lies outside the view).
 */
function rangeFractions(env, range) {
  const { model } = env;
  if (!model.view || model.kind === 'category') return [clamp(range.fromFraction ?? 0, 0, 1), clamp(range.toFraction ?? 0, 0, 1)];
  const a = model.fractionOf(range.from);
  const b = model.fractionOf(range.to);
  if (!Number.isFinite(a) || !Number.isFinite(b)) return null;
  if (Math.max(a, b) < -VIEW_EDGE || Math.min(a, b) > 1 + VIEW_EDGE) return null;
  return [clamp(a, 0, 1), clamp(b, 0, 1)];
}

/** The pixel span of the mark at `x` with server fraction `fraction`. */
function markSpan(env, x, fraction) {
  const { model, plot, rtl, layout } = env;
  const i = model.kind === 'category' ? model.categoryIndex(x) : -1;
  if (i >= 0) {
    const band = categoryBand(i, model.categories.length);
    return { ...bandToPixels(plot, band.start, band.end, rtl), centre: fractionToPixel(plot, band.centre, rtl), band: true };
  }
  const centre = fractionToPixel(plot, fraction, rtl);
  if (model.kind === 'category') {
    const half = plot.width / Math.max(1, model.categories.length) / 2;
    return { left: centre - half, right: centre + half, centre, band: true };
  }
  const half = layout.groupWidth / 2;
  return { left: centre - half, right: centre + half, centre, band: false };
}

function paintHover(env, hover, stackIndex) {
  const { ctx, model, plot, rtl, theme, viewerOf, size } = env;
  const viewer = viewerOf(hover.by);
  const color = viewer.color || theme.text;
  const span = markSpan(env, hover.x, placed(env, hover.x, hover.fraction));
  if (span.band) {
    ctx.fillStyle = withAlpha(color, theme.dark ? 0.3 : 0.2);
    ctx.fillRect(span.left, plot.y, span.right - span.left, plot.height);
  } else {
    rule(ctx, span.centre, plot, color, 1.5);
    valueDots(env, hover.x, hover.values, span.centre);
  }
  const lines = [
    { text: viewer.name, color, bold: true },
    { text: formatX(hover.x, model.kind), bold: true },
    ...valueLines(env, hover.values),
  ];
  const box = measureBox(ctx, lines);
  const trailing = (hover.placement ?? 'trailing') === 'trailing';
  const toRight = trailing !== rtl;
  const anchorLeft = span.band ? span.left : span.centre;
  const anchorRight = span.band ? span.right : span.centre;
  let x = toRight ? anchorRight + 6 : anchorLeft - 6 - box.width;
  x = clamp(x, 0, size.width - box.width);
  const rows = Math.max(1, Math.floor((plot.height - 4) / (box.height + 6)));
  const y = plot.y + 2 + (stackIndex % rows) * (box.height + 6);
  drawBox(ctx, x, y, box, lines, theme, color);
}

function paintScrub(env, scrub) {
  const { ctx, model, plot, theme, viewerOf, size, layout, y } = env;
  const viewer = viewerOf(scrub.by);
  const color = viewer.color || theme.text;
  const span = markSpan(env, scrub.x, placed(env, scrub.x, scrub.fraction));
  ctx.fillStyle = theme.dim;
  ctx.fillRect(plot.x, plot.y - 4, span.left - plot.x, plot.height + 4);
  ctx.fillRect(span.right, plot.y - 4, plot.x + plot.width - span.right, plot.height + 4);
  rule(ctx, span.centre, plot, color, 1.5);
  ctx.textAlign = 'center';
  ctx.textBaseline = 'bottom';
  for (const v of scrub.values ?? []) {
    const index = model.series.findIndex((s) => s.name === v.series);
    if (typeof v.y !== 'number' || index < 0) continue;
    const bar = model.spec.mark === 'bar' ? layout.barAt(index, scrub.x) : null;
    const cx = bar ? bar.left + bar.width / 2 : span.centre;
    ctx.fillStyle = theme.text;
    ctx.font = `600 ${FONT}`;
    ctx.fillText(formatNumber(v.y), cx, Math.max(plot.y + 10, y(v.y) - 4));
    ctx.font = FONT;
  }
  if (model.spec.mark !== 'bar') valueDots(env, scrub.x, scrub.values, span.centre);
  const values = (scrub.values ?? []).map((v) => formatNumber(v.y)).join(' / ');
  const text = `${formatX(scrub.x, model.kind)}: ${values}`;
  const w = ctx.measureText(text).width + 16;
  const h = 20;
  const py = plot.y + clamp(scrub.yFraction ?? 0.5, 0, 1) * plot.height;
  let x = span.centre + 8;
  if (x + w > size.width) x = span.centre - 8 - w;
  x = clamp(x, 0, size.width - w);
  const top = clamp(py - h / 2, 0, size.height - h);
  ctx.fillStyle = color;
  roundRect(ctx, x, top, w, h, h / 2);
  ctx.fill();
  ctx.fillStyle = '#ffffff';
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  ctx.fillText(text, x + 8, top + h / 2);
}

function paintRange(env, range) {
  const { ctx, model, plot, rtl, theme, viewerOf } = env;
  const color = viewerOf(range.by).color || theme.text;
  const fractions = rangeFractions(env, range);
  if (!fractions) return;
  const a = fractionToPixel(plot, fractions[0], rtl);
  const b = fractionToPixel(plot, fractions[1], rtl);
  const left = Math.min(a, b);
  const width = Math.max(1, Math.abs(b - a));
  ctx.fillStyle = withAlpha(color, 0.18);
  ctx.fillRect(left, plot.y, width, plot.height);
  ctx.strokeStyle = color;
  ctx.lineWidth = 1;
  ctx.strokeRect(Math.round(left) + 0.5, plot.y + 0.5, Math.round(width), plot.height - 1);
  const label = `${formatRangeBound(range.from, model.kind)} – ${formatRangeBound(range.to, model.kind)}`;
  const labelWidth = ctx.measureText(label).width + 12;
  const cx = clamp(left + width / 2, plot.x + labelWidth / 2, plot.x + plot.width - labelWidth / 2);
  ctx.fillStyle = theme.boxBackground;
  roundRect(ctx, cx - labelWidth / 2, plot.y + 3, labelWidth, 18, 9);
  ctx.fill();
  ctx.stroke();
  ctx.fillStyle = theme.text;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.fillText(label, cx, plot.y + 12);
}

function paintPin(env, pin) {
  const { ctx, model, plot, theme, viewerOf, size } = env;
  const viewer = viewerOf(pin.by);
  const span = markSpan(env, pin.x, placed(env, pin.x, pin.fraction));
  const lineX = span.centre;
  rule(ctx, lineX, plot, theme.axis, 2);
  valueDots(env, pin.x, pin.values, lineX);
  const lines = [
    { text: formatX(pin.x, model.kind), bold: true },
    ...valueLines(env, pin.values),
    { text: `Pinned by ${viewer.name}`, color: theme.muted },
  ];
  const box = measureBox(ctx, lines);
  box.width = Math.max(PIN_BOX_WIDTH, box.width);
  const x = Math.max(0, Math.min(size.width - box.width, lineX - box.width / 2));
  drawBox(ctx, x, plot.y + 2, box, lines, theme, viewer.color || theme.axis);
}

function valueLines(env, values) {
  return (values ?? []).map((v) => {
    const index = env.model.series.findIndex((s) => s.name === v.series);
    return { text: `${v.series} ${formatNumber(v.y)}`, swatch: seriesColor(env.theme, Math.max(0, index)) };
  });
}

function valueDots(env, x, values, px) {
  const { ctx, model, theme, y } = env;
  for (const v of values ?? []) {
    if (typeof v.y !== 'number') continue;
    const index = model.series.findIndex((s) => s.name === v.series);
    ctx.fillStyle = seriesColor(theme, Math.max(0, index));
    ctx.strokeStyle = theme.panel;
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.arc(px, y(v.y), 4.5, 0, Math.PI * 2);
    ctx.fill();
    ctx.stroke();
  }
}

function rule(ctx, x, plot, color, width) {
  ctx.strokeStyle = color;
  ctx.lineWidth = width;
  ctx.beginPath();
  ctx.moveTo(x, plot.y);
  ctx.lineTo(x, plot.y + plot.height);
  ctx.stroke();
}

function measureBox(ctx, lines) {
  let width = 0;
  for (const line of lines) {
    ctx.font = line.bold ? `600 ${FONT}` : FONT;
    width = Math.max(width, ctx.measureText(line.text).width + (line.swatch ? 14 : 0));
  }
  ctx.font = FONT;
  return { width: Math.ceil(width) + 16, height: lines.length * LINE_HEIGHT + 10 };
}

function drawBox(ctx, x, y, box, lines, theme, accent) {
  ctx.fillStyle = theme.boxBackground;
  ctx.strokeStyle = accent || theme.boxBorder;
  ctx.lineWidth = 1;
  roundRect(ctx, x + 0.5, y + 0.5, box.width, box.height, 6);
  ctx.fill();
  ctx.stroke();
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  lines.forEach((line, i) => {
    const ly = y + 5 + i * LINE_HEIGHT + LINE_HEIGHT / 2;
    let lx = x + 8;
    if (line.swatch) {
      ctx.fillStyle = line.swatch;
      ctx.fillRect(lx, ly - 4, 8, 8);
      lx += 14;
    }
    ctx.font = line.bold ? `600 ${FONT}` : FONT;
    ctx.fillStyle = line.color || theme.text;
    ctx.fillText(line.text, lx, ly);
  });
  ctx.font = FONT;
}

function roundRect(ctx, x, y, w, h, r) {
  ctx.beginPath();
  ctx.roundRect(x, y, w, h, Math.min(r, h / 2, w / 2));
}

function clamp(v, lo, hi) {
  return Math.max(lo, Math.min(hi, v));
}
