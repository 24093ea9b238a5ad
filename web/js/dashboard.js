/**
 * The dashboard: owns the connection, one model and panel per chart from
 * `welcome`, the viewers list, the status indicator, the name form (with the
 * error beside it) and the screen-reader live region, and routes every
 * protocol v1 message.
 *
 * Names: the page says its name in a `hello` after every `welcome`, once the
 * server's limits are known, and only if it passes the name rule
 * (`names.js`). Each `hello` carries a fresh `ref`; an `error` echoing it
 * means the server refused the name. A name is remembered in localStorage only
 * once the server accepted it (the viewers list shows it), so a refused name
 * is neither stored nor said again on the next connection.
 */

import { Connection, socketURL } from './connection.js';
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
    });
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
      case 'snapshot': this.#withChart(msg, (c) => { c.model.applySnapshot(msg); c.panel.dataChanged(); this.#touched(); }); break;
      case 'append': this.#withChart(msg, (c) => { c.model.applyAppend(msg); c.panel.dataChanged(); this.#touched(); }); break;
      case 'selection': this.#withChart(msg, (c) => { c.model.applySelection(msg); c.panel.selectionChanged(); }); break;
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
    this.#sayName();
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
        ready: model.ready,
        kind: model.kind,
        seq: model.seq,
        points: model.pointCount,
        categories: [...model.categories],
        domain: model.kind === 'category' ? null : model.domain,
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
      charts,
    };
  }
}

function readStoredName() {
  try {
    return localStorage.getItem(NAME_KEY) ?? '';
  } catch {
    return '';
  }
}
