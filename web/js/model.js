/**
 * The page's copy of one chart: its spec from `welcome`, its data from
 * `snapshot` and `append`, and the shared selection from `selection`.
 * Plain data with no DOM; the panel reads it to paint.
 */

import { continuousFraction, categoryBand } from './geometry.js';

/** An empty shared selection, as the server sends when nothing is selected. */
export function emptySelection() {
  return { hovers: [], scrub: null, range: null, pin: null };
}

/** One chart's data and selection state. */
export class ChartModel {
  /** @param {object} spec a ChartSpec from `welcome` */
  constructor(spec) {
    this.spec = spec;
    this.reset();
  }

  /** Drops all data and selection, as before the first snapshot. */
  reset() {
    this.ready = false;
    this.seq = -1;
    this.kind = this.spec.x?.kind ?? 'category';
    this.categories = Array.isArray(this.spec.x?.categories) ? [...this.spec.x.categories] : [];
    this.xDomain = null;
    /** The live window's x domain (time/linear), kept from snapshots without `view` and appends. */
    this.liveDomain = null;
    /** This viewer's zoom `{from, to}` from the latest snapshot's `view`; null while live. */
    this.view = null;
    /**
     * The server's y domain `[d0, d1]` from `snapshot`/`append` `y.domain`: the only one the page
     * draws with (the server hit-tests with it too). Null before the first snapshot.
     */
    this.yDomain = null;
    this.series = (this.spec.series ?? []).map((name) => ({ name, points: [] }));
    this.selection = emptySelection();
    this.updatedAt = null;
  }

  /** Replaces the spec (a new `welcome`) and drops the data it described. */
  setSpec(spec) {
    this.spec = spec;
    this.reset();
  }

  /**
   * Applies a `snapshot`: every series' points, domains and the selection.
   * - Complexity: O(points · log points) for the sort of continuous x.
   */
  applySnapshot(msg) {
    if (msg.x?.kind) this.kind = msg.x.kind;
    this.series = (msg.series ?? []).map((s) => ({
      name: String(s.name),
      points: (s.points ?? []).map((p) => [p[0], p[1]]),
    }));
    if (this.kind === 'category') {
      const fromDomain = Array.isArray(msg.x?.domain) && msg.x.domain.every((c) => typeof c === 'string')
        ? msg.x.domain : null;
      this.categories = [...(fromDomain ?? this.categories)];
      for (const s of this.series) for (const [x] of s.points) this.#ensureCategory(x);
      for (const s of this.series) s.points.sort((a, b) => this.categories.indexOf(a[0]) - this.categories.indexOf(b[0]));
    } else {
      for (const s of this.series) s.points.sort((a, b) => a[0] - b[0]);
      this.view = validView(msg.view);
      this.xDomain = validDomain(msg.x?.domain) ?? (this.view && [this.view.from, this.view.to]);
      if (!this.view) this.liveDomain = this.xDomain;
    }
    this.yDomain = validDomain(msg.y?.domain);
    this.selection = normaliseSelection(msg.selection);
    this.seq = msg.seq ?? this.seq;
    this.ready = true;
    this.#touch();
  }

  /**
   * Applies an `append`: upserts points (in x order for continuous axes, by
   * category otherwise), evicts points before `evictBefore`, updates domains.
   * Its domains are the live window's: while zoomed the x domain drawn stays
   * the view's, and its y domain only widens (a point arriving in the view is
   * not drawn off the plot).
   * - Complexity: O(log n) search plus the array insertion per point.
   */
  applyAppend(msg) {
    for (const p of msg.points ?? []) {
      let series = this.series.find((s) => s.name === p.series);
      if (!series) {
        series = { name: String(p.series), points: [] };
        this.series.push(series);
      }
      if (this.kind === 'category') {
        this.#ensureCategory(p.x);
        const at = series.points.findIndex((q) => q[0] === p.x);
        if (at >= 0) series.points[at][1] = p.y;
        else {
          series.points.push([p.x, p.y]);
          series.points.sort((a, b) => this.categories.indexOf(a[0]) - this.categories.indexOf(b[0]));
        }
      } else {
        upsertSorted(series.points, p.x, p.y);
      }
    }
    if (typeof msg.evictBefore === 'number' && this.kind !== 'category') {
      for (const s of this.series) {
        const keep = lowerBound(s.points, msg.evictBefore);
        if (keep > 0) s.points.splice(0, keep);
      }
    }
    if (msg.x?.domain && this.kind !== 'category') {
      this.liveDomain = validDomain(msg.x.domain) ?? this.liveDomain;
      if (!this.view) this.xDomain = this.liveDomain;
    }
    const y = msg.y?.domain ? validDomain(msg.y.domain) : null;
    if (y) this.yDomain = this.view && this.yDomain ? widen(this.yDomain, y) : y;
    this.seq = msg.seq ?? this.seq;
    this.#touch();
  }

  /** Applies a `selection` message (the whole shared state of the chart). */
  applySelection(msg) {
    this.selection = normaliseSelection(msg);
    this.seq = msg.seq ?? this.seq;
  }

  /** The x domain used for drawing: the server's (the view's while zoomed), or the data's extent. */
  get domain() {
    if (this.xDomain) return this.xDomain;
    let lo = Infinity;
    let hi = -Infinity;
    for (const s of this.series) {
      if (s.points.length === 0) continue;
      lo = Math.min(lo, s.points[0][0]);
      hi = Math.max(hi, s.points[s.points.length - 1][0]);
    }
    return Number.isFinite(lo) ? [lo, hi] : [0, 1];
  }

  /** Whether there is anything to draw: a snapshot arrived, with the server's y domain. */
  get drawable() {
    return this.ready && this.yDomain !== null;
  }

  /** Index of a category, or -1. */
  categoryIndex(x) {
    return this.categories.indexOf(x);
  }

  /**
   * The x fraction of a data value on this chart's axis (band centre for
   * categories), or null for an unknown category.
   */
  fractionOf(x) {
    if (this.kind === 'category') {
      const i = this.categoryIndex(x);
      return i < 0 ? null : categoryBand(i, this.categories.length).centre;
    }
    return continuousFraction(Number(x), this.domain);
  }

  /** Total number of points over every series. */
  get pointCount() {
    return this.series.reduce((n, s) => n + s.points.length, 0);
  }

  #ensureCategory(x) {
    if (!this.categories.includes(x)) this.categories.push(x);
  }

  #touch() {
    this.updatedAt = new Date();
  }
}

function validDomain(domain) {
  if (!Array.isArray(domain) || domain.length !== 2) return null;
  const [a, b] = domain.map(Number);
  return Number.isFinite(a) && Number.isFinite(b) ? [a, b] : null;
}

/** A snapshot's `view` as `{from, to}`, or null (absent, or not a domain). */
function validView(view) {
  const domain = validDomain([view?.from, view?.to]);
  return domain && domain[0] < domain[1] ? { from: domain[0], to: domain[1] } : null;
}

/** The smallest domain holding both, in the first's orientation. */
function widen(a, b) {
  const lo = Math.min(a[0], a[1], b[0], b[1]);
  const hi = Math.max(a[0], a[1], b[0], b[1]);
  return a[0] <= a[1] ? [lo, hi] : [hi, lo];
}

function normaliseSelection(sel) {
  return {
    hovers: Array.isArray(sel?.hovers) ? sel.hovers : [],
    scrub: sel?.scrub ?? null,
    range: sel?.range ?? null,
    pin: sel?.pin ?? null,
  };
}

/** First index whose x is ≥ `x` in points sorted by x. O(log n). */
export function lowerBound(points, x) {
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (points[mid][0] < x) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/** Inserts or replaces `[x, y]` keeping points sorted by x. O(log n) search. */
export function upsertSorted(points, x, y) {
  if (points.length === 0 || points[points.length - 1][0] < x) {
    points.push([x, y]);
    return;
  }
  const at = lowerBound(points, x);
  if (at < points.length && points[at][0] === x) points[at][1] = y;
  else points.splice(at, 0, [x, y]);
}
