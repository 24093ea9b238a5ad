/**
 * One chart's panel: title, last-update time, a base canvas (marks, repainted
 * only on data, size, view or theme change), an overlay canvas (the shared
 * selection, and the element that takes pointer, wheel and keyboard input),
 * the selection status text and the range summary. A time or linear chart
 * zooms per viewer (`zoom.js`); while its snapshot carries a `view` the header
 * shows a "Zoomed" badge, a button that returns the plot to live.
 *
 * A panel lives from its chart's first mention (`welcome` or `chart`) until
 * the chart is removed: `destroy()` takes its element out and stops its
 * ResizeObserver, input listeners and pending animation frames, after which
 * nothing a late message triggers paints or sends.
 */

import { plotFrame } from './geometry.js';
import { paintBase } from './base-painter.js';
import { paintOverlay } from './overlay-painter.js';
import { describeSelection, describeChart, renderRangeSummary } from './describe.js';
import { attachInput } from './input.js';
import { formatClock, formatX } from './format.js';
import { ZoomControl } from './zoom.js';

/** A chart panel bound to a model. */
export class ChartPanel {
  /**
   * @param {import('./model.js').ChartModel} model
   * @param {{send:(msg:object)=>boolean, rtl:boolean, viewerOf:(id:string)=>{name:string,color:string},
   *          theme:()=>object, limits:()=>{maxHovers:number},
   *          onSelectionText:(panel:ChartPanel, lines:string[])=>void}} env
   */
  constructor(model, env) {
    this.model = model;
    this.env = env;
    this.size = { width: 0, height: 0 };
    this.dpr = window.devicePixelRatio || 1;
    this.plot = null;
    this.sentViewport = '';
    this.baseDirty = true;
    this.overlayDirty = true;
    this.frame = 0;
    this.destroyed = false;
    this.#build();
    const input = attachInput(this.overlay, model.spec.id, (msg) => env.send(msg), () => env.rtl,
      () => this.zoom.pinching);
    this.detachInput = input.detach;
    this.zoom = new ZoomControl(this.overlay, model, {
      send: (msg) => env.send(msg),
      rtl: env.rtl,
      plot: () => this.plot,
      cancelPress: input.cancelPress,
    });
    this.zoomBadge.addEventListener('click', () => {
      // The badge hides once live: keyboard focus goes back to the chart rather than the page.
      if (this.zoom.goLive() && document.activeElement === this.zoomBadge) this.overlay.focus();
    });
    this.observer = new ResizeObserver((entries) => this.#resized(entries[entries.length - 1].contentRect));
    this.observer.observe(this.box);
  }

  /** The chart id. */
  get id() {
    return this.model.spec.id;
  }

  /**
   * Replaces the title and labels after a new spec (`welcome` or `chart`). The server shows
   * the live window of a new connection or a replaced chart, so any zoom asked for is forgotten.
   */
  refreshSpec() {
    this.title.textContent = this.model.spec.title ?? this.id;
    const zoomable = (this.model.spec.x?.kind ?? 'category') !== 'category';
    const zoomHelp = zoomable ? ' Plus and minus keys or the wheel zoom; double-click or the Zoomed button returns to live.' : '';
    this.overlay.setAttribute('aria-label', `${this.model.spec.title ?? this.id}. Interactive chart: arrow keys move the selection, Shift+arrows extend it, Enter pins, Escape clears.${zoomHelp}`);
    this.zoom?.reset();
    this.dataChanged();
  }

  /** Marks the data changed: base, overlay and texts repaint next frame. */
  dataChanged() {
    this.baseDirty = true;
    this.#updateZoomBadge();
    this.selectionChanged();
  }

  /** A snapshot arrived (its `view`, if any, is in the model): settles the zoom asked for and repaints. */
  snapshotApplied() {
    this.zoom.answered();
    this.dataChanged();
  }

  /** The server refused a message with `ref`: a refused `view` is forgotten. */
  refused(ref) {
    this.zoom.refused(ref);
  }

  /** Marks the selection (or the viewers' names and colours) changed. */
  selectionChanged() {
    this.overlayDirty = true;
    this.#updateTexts();
    this.#schedule();
  }

  /** Marks everything dirty (theme change). */
  repaintAll() {
    this.dataChanged();
  }

  /**
   * Sends this chart's plot frame as a `viewport` message.
   * @param {boolean} force send even if unchanged since the last one
   */
  sendViewport(force = false) {
    if (!this.plot || this.destroyed) return;
    const message = { type: 'viewport', chart: this.id, plot: { ...this.plot }, rtl: this.env.rtl };
    const key = JSON.stringify(message);
    if (!force && key === this.sentViewport) return;
    if (this.env.send(message)) this.sentViewport = key;
  }

  /** Forgets the last sent viewport (a new connection needs it again). */
  resetViewport() {
    this.sentViewport = '';
  }

  /** Removes the panel and its listeners. */
  destroy() {
    if (this.destroyed) return;
    this.destroyed = true;
    this.observer.disconnect();
    this.detachInput();
    this.zoom.destroy();
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.element.remove();
  }

  #build() {
    const id = this.model.spec.id;
    const el = document.createElement('section');
    el.className = 'panel';
    el.dataset.chart = id;
    el.setAttribute('aria-labelledby', `title-${id}`);
    const head = document.createElement('header');
    head.className = 'panel-head';
    this.title = document.createElement('h2');
    this.title.id = `title-${id}`;
    this.updated = document.createElement('span');
    this.updated.className = 'updated';
    this.updated.textContent = 'Waiting for data…';
    this.zoomBadge = document.createElement('button');
    this.zoomBadge.type = 'button';
    this.zoomBadge.className = 'zoom-badge';
    this.zoomBadge.hidden = true;
    this.zoomBadge.textContent = 'Zoomed — double-click to return to live';
    head.append(this.title, this.zoomBadge, this.updated);
    this.box = document.createElement('div');
    this.box.className = 'chart-box';
    this.base = document.createElement('canvas');
    this.base.className = 'base';
    this.base.setAttribute('aria-hidden', 'true');
    this.overlay = document.createElement('canvas');
    this.overlay.className = 'overlay';
    this.overlay.tabIndex = 0;
    this.overlay.setAttribute('role', 'img');
    this.overlay.setAttribute('aria-describedby', `summary-${id}`);
    this.box.append(this.base, this.overlay);
    this.summary = document.createElement('p');
    this.summary.className = 'visually-hidden chart-summary';
    this.summary.id = `summary-${id}`;
    this.selectionText = document.createElement('p');
    this.selectionText.className = 'selection-text';
    this.rangeSummary = document.createElement('div');
    this.rangeSummary.className = 'range-summary';
    this.rangeSummary.hidden = true;
    el.append(head, this.box, this.summary, this.selectionText, this.rangeSummary);
    this.element = el;
    this.refreshSpec();
  }

  #resized(rect) {
    if (this.destroyed) return;
    const width = Math.floor(rect.width);
    const height = Math.floor(rect.height);
    const dpr = window.devicePixelRatio || 1;
    if (width === this.size.width && height === this.size.height && dpr === this.dpr) return;
    this.size = { width, height };
    this.dpr = dpr;
    for (const canvas of [this.base, this.overlay]) {
      canvas.width = Math.max(1, Math.round(width * dpr));
      canvas.height = Math.max(1, Math.round(height * dpr));
      canvas.style.width = `${width}px`;
      canvas.style.height = `${height}px`;
    }
    this.plot = plotFrame(width, height, this.env.rtl);
    this.sendViewport();
    this.dataChanged();
  }

  /** Shows the "Zoomed" badge while the model holds a view (its title names the view's span). */
  #updateZoomBadge() {
    const view = this.model.view;
    const key = view ? `${view.from}:${view.to}` : '';
    if (key === this.badgeKey) return;
    this.badgeKey = key;
    this.zoomBadge.hidden = !view;
    this.element.classList.toggle('zoomed', Boolean(view));
    this.zoomBadge.title = view
      ? `Not live: showing ${formatX(view.from, this.model.kind)} – ${formatX(view.to, this.model.kind)}. Press or double-click the chart to return to live.`
      : '';
  }

  #schedule() {
    if (this.frame || this.destroyed) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.#paint();
    });
  }

  #paint() {
    if (!this.plot) return;
    const theme = this.env.theme();
    const model = this.model;
    if (this.baseDirty) {
      this.baseDirty = false;
      const ctx = this.base.getContext('2d');
      ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
      paintBase(ctx, model, this.size, this.plot, this.env.rtl, theme);
      this.summary.textContent = describeChart(model);
      if (model.updatedAt) this.updated.textContent = `Updated ${formatClock(model.updatedAt)}`;
    }
    if (this.overlayDirty) {
      this.overlayDirty = false;
      const ctx = this.overlay.getContext('2d');
      ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
      paintOverlay(ctx, model, this.size, this.plot, this.env.rtl, theme, this.env.viewerOf, this.env.limits().maxHovers);
    }
  }

  /** Updates the selection status text and range summary right away. */
  #updateTexts() {
    if (!this.selectionText || this.destroyed) return;
    const lines = describeSelection(this.model, this.env.viewerOf);
    const text = lines.join('\n');
    if (this.selectionText.textContent !== text) {
      this.selectionText.textContent = text;
      this.env.onSelectionText(this, lines);
    }
    if (this.renderedRange !== this.model.selection.range) {
      this.renderedRange = this.model.selection.range;
      renderRangeSummary(this.rangeSummary, this.model);
    }
  }
}
