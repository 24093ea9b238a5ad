/**
 * Text for people who read rather than look: the per-chart selection status
 * (`.selection-text`), the range summary under a chart (dates, totals and
 * rows) and the chart summary behind each canvas's accessible description.
 */

import { formatNumber, formatX, formatRangeBound } from './format.js';

/**
 * One sentence per active selection on a chart, newest hover first, e.g.
 * "Viewer 2: March — Ice Cream 900, Coffee 1,900, Muffins 800".
 * @param {import('./model.js').ChartModel} model
 * @param {(id:string) => {name:string}} viewerOf
 * @returns {string[]}
 */
export function describeSelection(model, viewerOf) {
  const sel = model.selection;
  const kind = model.kind;
  const values = (list) => (list ?? []).map((v) => `${v.series} ${formatNumber(v.y)}`).join(', ');
  const out = [];
  for (const h of sel.hovers) out.push(`${viewerOf(h.by).name}: ${formatX(h.x, kind)} — ${values(h.values)}`);
  if (sel.scrub) out.push(`${viewerOf(sel.scrub.by).name} scrubbing: ${formatX(sel.scrub.x, kind)} — ${values(sel.scrub.values)}`);
  if (sel.range) {
    const r = sel.range;
    const totals = (r.totals ?? []).map((t) => `Total ${t.series}: ${formatNumber(t.sum)}`).join(', ');
    const span = `${formatRangeBound(r.from, kind)} – ${formatRangeBound(r.to, kind)}`;
    out.push(`${viewerOf(r.by).name} selected ${span} — ${totals} (${formatNumber(r.count ?? 0)} points)`);
  }
  if (sel.pin) out.push(`${viewerOf(sel.pin.by).name} pinned: ${formatX(sel.pin.x, kind)} — ${values(sel.pin.values)}`);
  return out;
}

/** "Selection: May 3 – May 15" for a range body. */
export function rangeTitle(range, kind) {
  return `Selection: ${formatRangeBound(range.from, kind)} – ${formatRangeBound(range.to, kind)}`;
}

/**
 * Fills `container` with the range summary (title, per-series totals with
 * count/min/max/mean, and the rows in a scrollable table), or empties and
 * hides it when the chart has no range.
 * - Complexity: O(rows), at most 500 by protocol.
 * @param {HTMLElement} container
 * @param {import('./model.js').ChartModel} model
 */
export function renderRangeSummary(container, model) {
  const range = model.selection.range;
  container.replaceChildren();
  container.hidden = !range;
  if (!range) return;
  const kind = model.kind;
  const title = document.createElement('div');
  title.className = 'range-title';
  title.textContent = rangeTitle(range, kind);
  container.append(title);
  for (const t of range.totals ?? []) {
    const line = document.createElement('div');
    line.className = 'range-total';
    const strong = document.createElement('strong');
    strong.textContent = `Total ${t.series}: ${formatNumber(t.sum)}`;
    const stats = document.createElement('span');
    stats.className = 'range-stats';
    const count = t.count ?? (range.rows ?? []).filter((row) => row.series === t.series).length;
    stats.textContent = ` · count ${formatNumber(count)} · min ${formatNumber(t.min)} · max ${formatNumber(t.max)} · mean ${formatNumber(t.mean)}`;
    line.append(strong, stats);
    container.append(line);
  }
  const rows = range.rows ?? [];
  if (rows.length === 0) return;
  const scroller = document.createElement('div');
  scroller.className = 'range-rows';
  scroller.tabIndex = 0;
  scroller.setAttribute('aria-label', 'Selected rows');
  const table = document.createElement('table');
  const head = table.createTHead().insertRow();
  for (const label of [model.spec.x?.label ?? 'x', 'Series', model.spec.y?.label ?? 'Value']) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = label;
    head.append(th);
  }
  const body = table.createTBody();
  for (const row of rows) {
    const tr = body.insertRow();
    tr.insertCell().textContent = formatX(row.x, kind);
    tr.insertCell().textContent = row.series;
    const value = tr.insertCell();
    value.textContent = formatNumber(row.y);
    value.className = 'num';
  }
  scroller.append(table);
  container.append(scroller);
  if (range.truncated) {
    const more = document.createElement('div');
    more.className = 'range-more';
    more.textContent = `Showing ${formatNumber(rows.length)} of ${formatNumber(range.count)} rows`;
    container.append(more);
  }
}

/**
 * A text summary of a chart's data for assistive technology, e.g.
 * "Bar chart with 12 categories from January to December. Ice Cream from 600 to 1,200; …",
 * saying so when the viewer is zoomed (not live).
 * - Complexity: O(points).
 * @param {import('./model.js').ChartModel} model
 * @returns {string}
 */
export function describeChart(model) {
  const mark = { bar: 'Bar chart', line: 'Line chart', point: 'Scatter chart', area: 'Area chart' }[model.spec.mark] ?? 'Chart';
  if (!model.ready) return `${mark}: ${model.spec.title ?? model.spec.id}, waiting for data.`;
  const kind = model.kind;
  const zoom = model.view
    ? ` Zoomed, not live: ${model.spec.x?.label ?? 'x'} from ${formatX(model.view.from, kind)} to ${formatX(model.view.to, kind)}.`
    : '';
  if (model.pointCount === 0) return `${mark}: ${model.spec.title ?? model.spec.id}, no data ${model.view ? 'in this view' : 'yet'}.${zoom}`;
  let axis;
  if (kind === 'category') {
    const n = model.categories.length;
    axis = n ? `${n} categories from ${model.categories[0]} to ${model.categories[n - 1]}` : 'no categories';
  } else {
    const [d0, d1] = model.domain;
    axis = `${model.spec.x?.label ?? 'x'} from ${formatX(d0, kind)} to ${formatX(d1, kind)}`;
  }
  const series = model.series.map((s) => {
    const ys = s.points.map((p) => p[1]).filter((y) => typeof y === 'number');
    if (ys.length === 0) return `${s.name}: no values`;
    const last = s.points[s.points.length - 1];
    return `${s.name}: ${ys.length} values from ${formatNumber(Math.min(...ys))} to ${formatNumber(Math.max(...ys))}, latest ${formatNumber(last[1])} at ${formatX(last[0], kind)}`;
  });
  return `${mark}: ${model.spec.title ?? model.spec.id}.${zoom} ${axis}. ${series.join('; ')}.`;
}
