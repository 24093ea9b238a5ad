/**
 * The dashboard: owns the connection, one model and panel per chart, the
 * viewers list, the status indicator, the name form (with the error beside it)
 * and the screen-reader live region, and routes every protocol v1 message.
 *
 * Charts: `welcome` lists the dashboard's charts (on every connection, so
 * after a reconnect too): panels for charts it no longer lists go, new ones
 * are added, the ones kept get the new spec, and the grid follows its order.
 * While connected, `chart` adds a panel at the end of the grid (or gives the
 * panel with that id the new spec, its data reset until the `snapshot` that
 * follows) and `chart_removed` removes one; messages for a chart the page no
 * longer shows are ignored.
 *
 * Names: the page says its name in a `hello` after every `welcome`, once the
 * server's limits are known, and only if it passes the name rule
 * (`names.js`). Each `hello` carries a fresh `ref`; an `error` echoing it
 * means the server refused the name. A name is remembered in localStorage only
 * once the server accepted it (the viewers list shows it), so a refused name
 * is neither stored nor said again on the next connection.
 */

import { Connection, apiURL, socketURL } from './connection.js';
import { ChartModel } from './model.js';
import { ChartPanel } from './panel.js';
import { currentTheme, onThemeChange } from './theme.js';
import { formatClock } from './format.js';
import { makeRef } from './input.js';
import { V1_LIMITS, limitsFrom } from './limits.js';
import { normaliseName, nameFieldMaxLength } from './names.js';

const NAME_KEY = 'chartcast.name';
const STATUS_TEXT = {
  connecting: 'Connecting…',
  connected: 'Connected',
  reconnecting: 'Reconnecting…',
  offline: 'Offline',
  unauthorized: 'Access denied: open this page with its ?token=',
};

/** The running dashboard page. */
export class Dashboard {
  /**
   * @param {{grid:HTMLElement, status:HTMLElement, viewers:HTMLElement, nameForm:HTMLFormElement,
   *          nameInput:HTMLInputElement, nameError:HTMLElement, live:HTMLElement, lastUpdate:HTMLElement}} dom
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
    /** The server's limits from the latest `welcome` (v1's until one arrives). */
    this.limits = V1_LIMITS;
    /** The name the server last accepted, remembered in localStorage (when there is one). */
    this.savedName = readStoredName();
    /** The name to say after every `welcome` ('' keeps the server's default); checked against the limits first. */
    this.wantedName = this.savedName;
    /** The latest `hello` on this connection: `{ref, name, accepted}`, or null. */
    this.hello = null;
    this.viewerOf = (id) => this.viewers.get(id) ?? (this.me && this.me.id === id ? this.me : { id, name: id ?? 'Someone', color: '' });
    this.connection = new Connection(options.url ?? socketURL(window.location), {
      onMessage: (msg) => this.#receive(msg),
      onStatus: (status, detail) => this.#setStatus(status, detail),
    }, options.url ? undefined : apiURL('/api/dashboard', window.location));
    onThemeChange(() => {
      this.theme = currentTheme();
      for (const { panel } of this.charts.values()) panel.repaintAll();
    });
    dom.nameInput.value = this.wantedName;
    dom.nameInput.maxLength = nameFieldMaxLength(this.limits);
    dom.nameForm.addEventListener('submit', (event) => {
      event.preventDefault();
      this.#rename(dom.nameInput.value);
    });
    dom.nameInput.addEventListener('input', () => this.#nameEdited());
  }

  /** Starts connecting. */
  start() {
    this.connection.connect();
  }

  #receive(msg) {
    switch (msg.type) {
      case 'welcome': this.#welcome(msg); break;
      case 'snapshot': this.#withChart(msg, (c) => { c.model.applySnapshot(msg); c.panel.snapshotApplied(); this.#touched(); }); break;
      case 'append': this.#withChart(msg, (c) => { c.model.applyAppend(msg); c.panel.dataChanged(); this.#touched(); }); break;
      case 'selection': this.#withChart(msg, (c) => { c.model.applySelection(msg); c.panel.selectionChanged(); }); break;
      case 'chart': this.#defineChart(msg.spec); break;
      case 'chart_removed': this.#removeChart(msg.chart); break;
      case 'viewers': this.#setViewers(msg.viewers ?? [], msg.total); break;
      case 'error': this.#serverError(msg); break;
      default: break;
    }
  }

  #welcome(msg) {
    this.limits = limitsFrom(msg.limits);
    this.dom.nameInput.maxLength = nameFieldMaxLength(this.limits);
    this.hello = null;
    this.me = { id: msg.viewer, name: msg.name ?? msg.viewer, color: msg.color ?? '' };
    this.viewers = new Map([[this.me.id, this.me]]);
    this.viewerTotal = 1;
    this.dom.nameInput.placeholder = this.me.name;
    this.#followCharts(Array.isArray(msg.charts) ? msg.charts : []);
    this.connection.markConnected();
    this.#renderViewers();
    for (const { panel } of this.charts.values()) {
      panel.resetViewport();
      panel.sendViewport(true);
    }
    this.#sayName();
  }

  /**
   * Makes the panels those of `specs` (a `welcome`'s charts), in that order: panels of charts
   * not listed are removed, new ones added, kept ones reset to the listed spec (their snapshot
   * follows). Kept panels stay the same elements; only those out of order move.
   */
  #followCharts(specs) {
    const listed = new Map();
    for (const spec of specs) if (validSpec(spec) && !listed.has(spec.id)) listed.set(spec.id, spec);
    for (const id of [...this.charts.keys()]) if (!listed.has(id)) this.#removeChart(id);
    const ordered = new Map();
    let previous = null;
    for (const spec of listed.values()) {
      let chart = this.charts.get(spec.id);
      if (chart) {
        chart.model.setSpec(spec);
        chart.panel.refreshSpec();
      } else {
        chart = this.#makeChart(spec);
      }
      ordered.set(spec.id, chart);
      const el = chart.panel.element;
      const wanted = previous ? previous.nextElementSibling : this.dom.grid.firstElementChild;
      if (el !== wanted) this.dom.grid.insertBefore(el, wanted);
      previous = el;
    }
    this.charts = ordered;
  }

  /** A `chart` message: a new panel at the end of the grid, or the panel with that id reset to the new spec. */
  #defineChart(spec) {
    if (!validSpec(spec)) return;
    const existing = this.charts.get(spec.id);
    if (!existing) {
      const chart = this.#makeChart(spec);
      this.charts.set(spec.id, chart);
      this.dom.grid.append(chart.panel.element);
      return; // its viewport goes out once the panel has a size (ResizeObserver)
    }
    existing.model.setSpec(spec);
    existing.panel.refreshSpec();
    existing.panel.sendViewport(true);
  }

  /** A `chart_removed` message (or a chart a `welcome` no longer lists): the panel and its listeners go. */
  #removeChart(id) {
    const chart = this.charts.get(id);
    if (!chart) return;
    this.charts.delete(id);
    chart.panel.destroy();
  }

  /** A model and panel for `spec`, not yet in the grid. */
  #makeChart(spec) {
    const model = new ChartModel(spec);
    const panel = new ChartPanel(model, {
      send: (m) => this.connection.send(m),
      rtl: this.rtl,
      viewerOf: this.viewerOf,
      theme: () => this.theme,
      limits: () => this.limits,
      onSelectionText: (p, lines) => this.#announce(lines),
    });
    return { model, panel };
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
    // The server announces an accepted name in its next list. Beyond the listed viewers the page
    // cannot see its own entry and takes the list as the answer (errors are sent at once, lists
    // batched); should a refusal follow after all, it undoes this.
    const hello = this.hello;
    if (hello && !hello.accepted && (mine ? mine.name === hello.name : this.viewerTotal > this.viewers.size)) {
      this.#nameAccepted();
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

  #serverError(msg) {
    console.warn(`chartcast: server error ${msg.code}: ${msg.message}`);
    if (this.hello && msg.ref === this.hello.ref) this.#nameRefused(msg);
    if (typeof msg.ref === 'string') for (const { panel } of this.charts.values()) panel.refused(msg.ref);
  }

  /** The name form was submitted: an empty field forgets the name; a refused one is shown, never sent. */
  #rename(raw) {
    const { name, error } = normaliseName(raw, this.limits);
    if (name === '') {
      this.wantedName = '';
      this.hello = null;
      this.#remember('');
      this.#showNameError('');
      return;
    }
    if (error) {
      this.#showNameError(error);
      return;
    }
    this.#showNameError('');
    this.dom.nameInput.value = name;
    this.wantedName = name;
    this.#sendHello(name);
  }

  /** After `welcome`: says the wanted name if it passes the rule (an older page stored up to 64 characters). */
  #sayName() {
    if (!this.wantedName) return;
    const { name, error } = normaliseName(this.wantedName, this.limits);
    if (error) {
      const saved = this.wantedName === this.savedName;
      if (saved) this.#remember('');
      this.wantedName = '';
      this.#showNameError(`Your ${saved ? 'saved ' : ''}name was not used. ${error}`);
      return;
    }
    this.#sendHello(name);
  }

  #sendHello(name) {
    const ref = makeRef('name');
    this.hello = null;
    if (!this.connection.send({ type: 'hello', name, ref })) return; // said after the next welcome
    this.hello = { ref, name, accepted: false };
    if (this.me && this.me.name === name) this.#nameAccepted(); // unchanged: no list will announce it
  }

  #nameAccepted() {
    const { name } = this.hello;
    this.hello.accepted = true;
    this.#remember(name);
    this.#showNameError('');
    if (document.activeElement !== this.dom.nameInput) this.dom.nameInput.value = name;
  }

  /** The server refused the latest `hello`: show why; it keeps (and the page says again) the last accepted name. */
  #nameRefused(msg) {
    const refused = this.hello.name;
    this.hello = null;
    if (normaliseName(this.savedName, this.limits).name === refused) this.#remember('');
    this.wantedName = this.savedName;
    this.#showNameError(`The server refused this name: ${msg.message}`);
  }

  /** Remembers an accepted name ('' forgets it) in memory and in localStorage. */
  #remember(name) {
    this.savedName = name;
    try {
      if (name) localStorage.setItem(NAME_KEY, name); else localStorage.removeItem(NAME_KEY);
    } catch { /* storage unavailable: the name lasts for this page only */ }
  }

  /** While an error shows, it goes as soon as the field holds an acceptable name (or nothing). */
  #nameEdited() {
    if (!this.dom.nameError.textContent) return;
    const { name, error } = normaliseName(this.dom.nameInput.value, this.limits);
    if (name === '' || !error) this.#showNameError('');
  }

  /** Shows (or, with '', clears) the error beside the name field. */
  #showNameError(text) {
    this.dom.nameError.textContent = text;
    if (text) this.dom.nameInput.setAttribute('aria-invalid', 'true');
    else this.dom.nameInput.removeAttribute('aria-invalid');
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
        title: model.spec.title ?? id,
        mark: model.spec.mark ?? 'bar',
        ready: model.ready,
        kind: model.kind,
        seq: model.seq,
        points: model.pointCount,
        categories: [...model.categories],
        series: model.series.map((s) => s.name),
        domain: model.kind === 'category' ? null : model.domain,
        liveDomain: model.liveDomain ? [...model.liveDomain] : null,
        view: model.view ? { ...model.view } : null,
        zoomed: !panel.zoomBadge.hidden,
        yDomain: model.yDomain ? [...model.yDomain] : null,
        plot: panel.plot ? { ...panel.plot } : null,
        size: { ...panel.size },
        selection: JSON.parse(JSON.stringify(model.selection)),
      };
    }
    return {
      status: this.status,
      me: this.me,
      rtl: this.rtl,
      limits: { ...this.limits },
      viewers: [...this.viewers.values()],
      order: [...this.charts.keys()],
      charts,
    };
  }
}

/** Whether a spec from the server names its chart (anything else is ignored). */
function validSpec(spec) {
  return Boolean(spec) && typeof spec === 'object' && typeof spec.id === 'string' && spec.id !== '';
}

function readStoredName() {
  try {
    return localStorage.getItem(NAME_KEY) ?? '';
  } catch {
    return '';
  }
}
