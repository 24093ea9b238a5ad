/**
 * The dashboard: owns the connection, one model and panel per chart from
 * `welcome`, the viewers list, the status indicator, the name form and the
 * screen-reader live region, and routes every protocol v1 message.
 */

import { Connection, socketURL } from './connection.js';
import { ChartModel } from './model.js';
import { ChartPanel } from './panel.js';
import { currentTheme, onThemeChange } from './theme.js';
import { formatClock } from './format.js';

const NAME_KEY = 'chartcast.name';
const STATUS_TEXT = {
  connecting: 'Connecting…',
  connected: 'Connected',
  reconnecting: 'Reconnecting…',
  offline: 'Offline',
};

/** The running dashboard page. */
export class Dashboard {
  /**
   * @param {{grid:HTMLElement, status:HTMLElement, viewers:HTMLElement, nameForm:HTMLFormElement,
   *          nameInput:HTMLInputElement, live:HTMLElement, lastUpdate:HTMLElement}} dom
   * @param {{rtl:boolean, url?:string}} options
   */
  constructor(dom, options) {
    this.dom = dom;
    this.rtl = options.rtl;
    /** @type {Map<string, {model: ChartModel, panel: ChartPanel}>} */
    this.charts = new Map();
    /** @type {Map<string, {id:string,name:string,color:string}>} */
    this.viewers = new Map();
    this.me = null;
    this.status = 'connecting';
    this.theme = currentTheme();
    this.announceTimer = 0;
    this.pendingAnnouncement = '';
    this.viewerOf = (id) => this.viewers.get(id) ?? (this.me && this.me.id === id ? this.me : { id, name: id ?? 'Someone', color: '' });
    this.connection = new Connection(options.url ?? socketURL(window.location), {
      onOpen: () => this.#opened(),
      onMessage: (msg) => this.#receive(msg),
      onStatus: (status, detail) => this.#setStatus(status, detail),
    });
    onThemeChange(() => {
      this.theme = currentTheme();
      for (const { panel } of this.charts.values()) panel.repaintAll();
    });
    dom.nameInput.value = readName();
    dom.nameForm.addEventListener('submit', (event) => {
      event.preventDefault();
      this.#rename(dom.nameInput.value);
    });
  }

  /** Starts connecting. */
  start() {
    this.connection.connect();
  }

  #opened() {
    const name = readName();
    if (name) this.connection.send({ type: 'hello', name });
  }

  #receive(msg) {
    switch (msg.type) {
      case 'welcome': this.#welcome(msg); break;
      case 'snapshot': this.#withChart(msg, (c) => { c.model.applySnapshot(msg); c.panel.dataChanged(); this.#touched(); }); break;
      case 'append': this.#withChart(msg, (c) => { c.model.applyAppend(msg); c.panel.dataChanged(); this.#touched(); }); break;
      case 'selection': this.#withChart(msg, (c) => { c.model.applySelection(msg); c.panel.selectionChanged(); }); break;
      case 'viewers': this.#setViewers(msg.viewers ?? [], msg.total); break;
      case 'error': console.warn(`chartcast: server error ${msg.code}: ${msg.message}`); break;
      default: break;
    }
  }

  #welcome(msg) {
    this.me = { id: msg.viewer, name: msg.name ?? msg.viewer, color: msg.color ?? '' };
    this.viewers = new Map([[this.me.id, this.me]]);
    this.viewerTotal = 1;
    this.dom.nameInput.placeholder = this.me.name;
    const specs = Array.isArray(msg.charts) ? msg.charts : [];
    const sameCharts = specs.length === this.charts.size && specs.every((s) => this.charts.has(s.id));
    if (!sameCharts) {
      for (const { panel } of this.charts.values()) panel.destroy();
      this.charts.clear();
      for (const spec of specs) {
        const model = new ChartModel(spec);
        const panel = new ChartPanel(model, {
          send: (m) => this.connection.send(m),
          rtl: this.rtl,
          viewerOf: this.viewerOf,
          theme: () => this.theme,
          onSelectionText: (p, lines) => this.#announce(lines),
        });
        this.charts.set(spec.id, { model, panel });
        this.dom.grid.append(panel.element);
      }
    } else {
      for (const spec of specs) {
        const { model, panel } = this.charts.get(spec.id);
        model.setSpec(spec);
        panel.refreshSpec();
      }
    }
    this.connection.markConnected();
    this.#renderViewers();
    for (const { panel } of this.charts.values()) {
      panel.resetViewport();
      panel.sendViewport(true);
    }
  }

  #withChart(msg, apply) {
    const chart = this.charts.get(msg.chart);
    if (chart) apply(chart);
  }

  #touched() {
    this.dom.lastUpdate.textContent = `Last update ${formatClock(new Date())}`;
  }

  #setViewers(list, total) {
    this.viewers = new Map(list.map((v) => [v.id, v]));
    this.viewerTotal = Number.isFinite(total) ? total : list.length;
    const mine = this.me && this.viewers.get(this.me.id);
    if (mine) {
      this.me = mine;
      this.dom.nameInput.placeholder = mine.name;
    }
    this.#renderViewers();
    for (const { panel } of this.charts.values()) panel.selectionChanged();
  }

  #renderViewers() {
    const items = [...this.viewers.values()].map((v) => {
      const li = document.createElement('li');
      li.dataset.viewer = v.id;
      const dot = document.createElement('span');
      dot.className = 'viewer-dot';
      dot.style.background = v.color || 'currentColor';
      dot.setAttribute('aria-hidden', 'true');
      const name = document.createElement('span');
      name.textContent = this.me && v.id === this.me.id ? `${v.name} (you)` : v.name;
      li.append(dot, name);
      return li;
    });
    const unlisted = (this.viewerTotal ?? 0) - this.viewers.size;
    if (unlisted > 0) {
      const more = document.createElement('li');
      more.className = 'viewers-more';
      more.textContent = `and ${unlisted} more`;
      items.push(more);
    }
    this.dom.viewers.replaceChildren(...items);
  }

  #setStatus(status, detail) {
    this.status = status;
    const el = this.dom.status;
    el.dataset.state = status;
    el.textContent = STATUS_TEXT[status] ?? status;
    el.title = detail ?? '';
  }

  #rename(raw) {
    const name = raw.trim().slice(0, 64);
    try {
      if (name) localStorage.setItem(NAME_KEY, name); else localStorage.removeItem(NAME_KEY);
    } catch { /* storage unavailable: the name lasts for this page only */ }
    if (name) this.connection.send({ type: 'hello', name });
  }

  /** Announces the newest selection text politely, at most every 0.4 s and never twice in a row. */
  #announce(lines) {
    if (lines.length === 0) return;
    this.pendingAnnouncement = lines[0];
    if (this.announceTimer) return;
    this.announceTimer = setTimeout(() => {
      this.announceTimer = 0;
      if (this.dom.live.textContent !== this.pendingAnnouncement) this.dom.live.textContent = this.pendingAnnouncement;
    }, 400);
  }

  /** A read-only view of the page's state, for diagnostics and browser tests. */
  inspect() {
    const charts = {};
    for (const [id, { model, panel }] of this.charts) {
      charts[id] = {
        ready: model.ready,
        kind: model.kind,
        seq: model.seq,
        points: model.pointCount,
        categories: [...model.categories],
        domain: model.kind === 'category' ? null : model.domain,
        plot: panel.plot ? { ...panel.plot } : null,
        size: { ...panel.size },
        selection: JSON.parse(JSON.stringify(model.selection)),
      };
    }
    return { status: this.status, me: this.me, rtl: this.rtl, viewers: [...this.viewers.values()], charts };
  }
}

function readName() {
  try {
    return localStorage.getItem(NAME_KEY) ?? '';
  } catch {
    return '';
  }
}
