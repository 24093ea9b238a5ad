/**
 * Per-viewer zoom of a time or linear chart: the wheel (and ctrl+wheel, as
 * Chromium delivers a trackpad pinch) zooms around the pointer, a horizontal
 * wheel pans, a two-finger touch pinch zooms and pans, `+`/`-` zoom a focused
 * chart around its centre, and a double-click returns to live. Sends protocol
 * v1 `view` messages, at most one per animation frame; the page keeps drawing
 * the domain of the latest `snapshot` until the one answering arrives.
 */

import { makeRef } from './input.js';

/** The largest magnitude of a view's ends the server takes (`ViewRequest.maxMagnitude`). */
export const MAX_VIEW_MAGNITUDE = 1e15;

/** Wheel pixels per e-fold of zoom: a mouse notch (100 px) zooms by about 22%. */
const WHEEL_PIXELS = 500;
/** A trackpad pinch (ctrl+wheel) sends small deltas: 100 px of it zooms by e. */
const PINCH_PIXELS = 100;
/** The most one wheel event may zoom or pan, in pixels of delta. */
const MAX_WHEEL_DELTA = 400;
/** The factor of one `+` or `-` key press. */
const KEY_FACTOR = 1.5;

/**
 * The domain `[from, to]` scaled by `factor` (below 1 zooms in) so that the
 * value `anchor` stays at data-order fraction `fraction` of the plot; no wider
 * than ±1e15 can hold.
 * @param {[number, number]} domain
 * @param {number} anchor
 * @param {number} fraction
 * @param {number} factor
 * @returns {[number, number]}
 */
export function zoomDomain(domain, anchor, fraction, factor) {
  const span = Math.min((domain[1] - domain[0]) * factor, 2 * MAX_VIEW_MAGNITUDE);
  const from = anchor - fraction * span;
  return [from, from + span];
}

/**
 * The narrowest span the page asks for: 1 ms on time charts, a millionth of
 * the live window, and comfortably above the server's floor of 1e-9 of the
 * ends' magnitude (below it the ends are too few doubles apart).
 * @param {string} kind 'time' | 'linear'
 * @param {[number, number]|null} live the live window's domain, when known
 * @param {[number, number]} domain the wanted view
 */
export function minViewSpan(kind, live, domain) {
  const magnitude = Math.max(Math.abs(domain[0]), Math.abs(domain[1]));
  const liveSpan = live ? Math.abs(live[1] - live[0]) : 0;
  return Math.max(kind === 'time' ? 1 : Number.MIN_VALUE, liveSpan * 1e-6, magnitude * 4e-9);
}

/**
 * A view the server accepts, as close to `domain` as possible: finite,
 * `from < to`, at least `minSpan` wide (widened around its centre), within
 * ±1e15 (shifted inside, then cut). Null when `domain` is not finite.
 * @param {[number, number]} domain
 * @param {number} minSpan
 * @returns {[number, number]|null}
 */
export function clampView(domain, minSpan) {
  let [from, to] = domain;
  if (!Number.isFinite(from) || !Number.isFinite(to) || !(minSpan > 0)) return null;
  if (from > to) [from, to] = [to, from];
  if (to - from < minSpan) {
    const centre = from / 2 + to / 2;
    from = centre - minSpan / 2;
    to = centre + minSpan / 2;
  }
  const max = MAX_VIEW_MAGNITUDE;
  if (to - from >= 2 * max) return [-max, max];
  if (from < -max) { to += -max - from; from = -max; }
  if (to > max) { from -= to - max; to = max; }
  from = Math.max(-max, from);
  to = Math.min(max, to);
  return from < to && Number.isFinite(to - from) ? [from, to] : null;
}

/**
 * A wheel event's deltas in CSS pixels (lines count 16 px, pages a plot width).
 * @param {WheelEvent} event
 * @param {number} page pixels of one page
 */
export function wheelPixels(event, page) {
  const unit = event.deltaMode === 1 ? 16 : event.deltaMode === 2 ? page : 1;
  const cap = (v) => Math.max(-MAX_WHEEL_DELTA, Math.min(MAX_WHEEL_DELTA, v * unit));
  return { dx: cap(event.deltaX || 0), dy: cap(event.deltaY || 0) };
}

/** One chart's zoom: input listeners on its overlay and the `view` requests they make. */
export class ZoomControl {
  /**
   * @param {HTMLElement} element the chart's overlay canvas
   * @param {import('./model.js').ChartModel} model
   * @param {{send:(msg:object)=>boolean, rtl:boolean, plot:()=>({x:number,width:number}|null),
   *          cancelPress:()=>void}} env
   */
  constructor(element, model, env) {
    this.element = element;
    this.model = model;
    this.env = env;
    this.frame = 0;
    /** Touch pointers down on the chart: pointerId → latest clientX. */
    this.touches = new Map();
    this.reset();
    this.listeners = [
      ['wheel', (e) => this.#wheel(e), { passive: false }],
      ['dblclick', (e) => this.#doubleClick(e)],
      ['keydown', (e) => this.#key(e)],
      ['pointerdown', (e) => this.#touchDown(e)],
      ['pointermove', (e) => this.#touchMove(e)],
      ['pointerup', (e) => this.#touchUp(e)],
      ['pointercancel', (e) => this.#touchUp(e)],
    ];
    for (const [type, fn, options] of this.listeners) element.addEventListener(type, fn, options);
  }

  /** Forgets every request (a new spec or connection: the server shows the live window again). */
  reset() {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    /** The view to send on the next frame. */
    this.pending = null;
    /** The view sent last and not yet answered by a snapshot, with its ref. */
    this.requested = null;
    this.pinch = null;
  }

  /** Whether pointer input belongs to a touch pinch (the panel's pointer messages pause). */
  get pinching() {
    return this.pinch !== null;
  }

  /**
   * Whether the chart can be zoomed: time or linear x, drawn, with points (an empty chart's live
   * domain is a placeholder) or a view to zoom out of.
   */
  get enabled() {
    const model = this.model;
    return model.kind !== 'category' && model.drawable && Boolean(this.env.plot())
      && (model.pointCount > 0 || model.view !== null);
  }

  /** Whether the viewer's plot shows, or has asked for, a view rather than the live window. */
  get zoomed() {
    return this.model.view !== null || this.requested !== null || this.pending !== null;
  }

  /** A snapshot arrived: the request it answers is settled. */
  answered() {
    const view = this.model.view;
    if (!this.requested || !view) return;
    const [from, to] = this.requested.domain;
    const close = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
    if (close(view.from, from) && close(view.to, to)) this.requested = null;
  }

  /** The server refused the message with `ref` (an `error`): a refused view is forgotten. */
  refused(ref) {
    if (this.requested && ref && this.requested.ref === ref) this.requested = null;
  }

  /** Returns the plot to the live window (`live: true`), if it shows or asked for a view. */
  goLive() {
    if (!this.zoomed || !this.enabled) return false;
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.pending = null;
    this.requested = null;
    this.env.send({ type: 'view', chart: this.model.spec.id, live: true, ref: makeRef('z') });
    return true;
  }

  /** Removes the listeners and any pending frame. */
  destroy() {
    this.reset();
    for (const [type, fn, options] of this.listeners) this.element.removeEventListener(type, fn, options);
  }

  /** The domain further zooming starts from: the newest asked for, else the one drawn. */
  #base() {
    return this.pending ?? this.requested?.domain ?? this.model.domain;
  }

  /** Data-order fraction of a client x on the plot (not clamped). */
  #fraction(clientX) {
    const plot = this.env.plot();
    const local = clientX - this.element.getBoundingClientRect().left;
    const f = (local - plot.x) / plot.width;
    return this.env.rtl ? 1 - f : f;
  }

  /** The data value drawn at data-order fraction `f` (through the domain on screen). */
  #valueAt(f) {
    const [d0, d1] = this.model.domain;
    return d0 + f * (d1 - d0);
  }

  /** Asks for `domain` (clamped to what the server takes) on the next animation frame. */
  #request(domain) {
    const view = clampView(domain, minViewSpan(this.model.kind, this.model.liveDomain, domain));
    if (!view) return;
    this.pending = view;
    if (!this.frame) this.frame = requestAnimationFrame(() => this.#flush());
  }

  #flush() {
    this.frame = 0;
    const view = this.pending;
    this.pending = null;
    if (!view || !this.enabled) return;
    const ref = makeRef('z');
    if (this.env.send({ type: 'view', chart: this.model.spec.id, from: view[0], to: view[1], ref })) {
      this.requested = { domain: view, ref };
    }
  }

  #wheel(event) {
    if (!this.enabled) return;
    event.preventDefault();
    const plot = this.env.plot();
    let { dx, dy } = wheelPixels(event, plot.width);
    if (event.shiftKey && dx === 0) [dx, dy] = [dy, 0]; // shift+wheel pans, where the browser does not turn it itself
    const base = this.#base();
    if (Math.abs(dx) > Math.abs(dy)) {
      const shift = (dx / plot.width) * (base[1] - base[0]) * (this.env.rtl ? -1 : 1);
      this.#request([base[0] + shift, base[1] + shift]);
      return;
    }
    if (dy === 0) return;
    const factor = Math.exp(dy / (event.ctrlKey ? PINCH_PIXELS : WHEEL_PIXELS));
    const f = Math.max(0, Math.min(1, this.#fraction(event.clientX)));
    this.#request(zoomDomain(base, this.#valueAt(f), f, factor));
  }

  #doubleClick(event) {
    if (this.goLive()) event.preventDefault();
  }

  #key(event) {
    if (!this.enabled || event.altKey || event.ctrlKey || event.metaKey) return;
    const factor = { '+': 1 / KEY_FACTOR, '=': 1 / KEY_FACTOR, '-': KEY_FACTOR, _: KEY_FACTOR }[event.key];
    if (!factor) return;
    event.preventDefault();
    const base = this.#base();
    this.#request(zoomDomain(base, (base[0] + base[1]) / 2, 0.5, factor));
  }

  #touchDown(event) {
    if (event.pointerType !== 'touch') return;
    this.touches.set(event.pointerId, event.clientX);
    if (this.touches.size !== 2 || this.pinch || !this.enabled) return;
    // A second finger: the press the first one began ends, and the two fingers hold the values under them.
    this.env.cancelPress();
    this.pinch = { ids: [...this.touches.keys()], values: null };
    this.#holdValues();
  }

  /** Fixes the values under the two fingers, once they are apart. */
  #holdValues() {
    const [fa, fb] = this.pinch.ids.map((id) => this.#fraction(this.touches.get(id)));
    if (Math.abs(fb - fa) >= 1e-3) this.pinch.values = [this.#valueAt(fa), this.#valueAt(fb)];
  }

  #touchMove(event) {
    if (!this.touches.has(event.pointerId)) return;
    this.touches.set(event.pointerId, event.clientX);
    if (!this.pinch || !this.touches.has(this.pinch.ids[0]) || !this.touches.has(this.pinch.ids[1])) return;
    if (!this.pinch.values) {
      this.#holdValues();
      return;
    }
    const [fa, fb] = this.pinch.ids.map((id) => this.#fraction(this.touches.get(id)));
    const [va, vb] = this.pinch.values;
    const span = (vb - va) / (fb - fa);
    if (!(span > 0) || !Number.isFinite(span)) return; // fingers together or crossed: wait
    const from = va - fa * span;
    this.#request([from, from + span]);
  }

  #touchUp(event) {
    if (!this.touches.delete(event.pointerId)) return;
    if (this.touches.size === 0) this.pinch = null; // input resumes with the next press
  }
}
