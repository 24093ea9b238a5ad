"""JavaScript run in the page by the browser tests through `execute_script` (or, for
`wire_tap_js`, before the page's own scripts through `Browser.on_new_document`)."""

import json

# Waits until the animation frames already requested (the panels' repaints) have run.
AFTER_PAINT_JS = """
const done = arguments[arguments.length - 1];
requestAnimationFrame(() => requestAnimationFrame(() => done(true)));
"""

# Counts painted (non-transparent) pixels of a chart canvas inside a CSS-px rectangle.
PIXELS_JS = """
const [chart, layer, x, y, w, h] = arguments;
const canvas = document.querySelector(`[data-chart="${chart}"] canvas.${layer}`);
if (!canvas) return null;
const rect = canvas.getBoundingClientRect();
const scale = canvas.width / rect.width;
const ctx = canvas.getContext('2d');
const rx = x === null ? 0 : x, ry = y === null ? 0 : y;
const rw = w === null ? rect.width : w, rh = h === null ? rect.height : h;
const sx = Math.max(0, Math.round(rx * scale)), sy = Math.max(0, Math.round(ry * scale));
const sw = Math.max(1, Math.min(canvas.width - sx, Math.round(rw * scale)));
const sh = Math.max(1, Math.min(canvas.height - sy, Math.round(rh * scale)));
const data = ctx.getImageData(sx, sy, sw, sh).data;
let painted = 0;
const colours = new Set();
for (let i = 0; i < data.length; i += 4) {
  if (data[i + 3] > 0) {
    painted += 1;
    if (colours.size < 64) colours.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
  }
}
return {painted, total: data.length / 4, colours: colours.size, width: canvas.width, height: canvas.height};
"""

# Records every message the page sends over its WebSocket (until the page reloads).
SPY_JS = """
if (!window.__sentMessages) {
  window.__sentMessages = [];
  const original = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    window.__sentMessages.push(data);
    return original.call(this, data);
  };
}
window.__sentMessages.length = 0;
"""

# Scrolls a chart into view; returns the viewport position of a visual plot fraction.
POINT_JS = """
const [chart, fx, fy] = arguments;
const canvas = document.querySelector(`[data-chart="${chart}"] canvas.overlay`);
canvas.scrollIntoView({block: 'center', inline: 'nearest'});
const plot = window.chartcast.inspect().charts[chart].plot;
const rect = canvas.getBoundingClientRect();
return [rect.left + plot.x + fx * plot.width, rect.top + plot.y + fy * plot.height];
"""

# Dispatches `count` pointermove events on a chart in one task; returns the last x (CSS px).
DISPATCH_MOVES_JS = """
const [chart, count] = arguments;
const canvas = document.querySelector(`[data-chart="${chart}"] canvas.overlay`);
const rect = canvas.getBoundingClientRect();
let x = 0;
for (let i = 0; i < count; i += 1) {
  x = 60 + i * 3.25;
  canvas.dispatchEvent(new PointerEvent('pointermove', {
    bubbles: true, pointerId: 1, pointerType: 'mouse', clientX: rect.left + x, clientY: rect.top + 80}));
}
return x;
"""

# Imports the page's own modules and runs their pure functions on known inputs.
MODULES_JS = """
const done = arguments[arguments.length - 1];
Promise.all(['connection', 'geometry', 'model', 'format', 'base-painter'].map(m => import(`/js/${m}.js`)))
  .then(([connection, geometry, model, format, painter]) => {
    const backoff = [0, 1, 2, 3, 4, 5, 9].map(a =>
      [connection.backoffDelay(a, () => 0), connection.backoffDelay(a, () => 1)]);
    const plot = {x: 10, y: 0, width: 400, height: 100};
    const m = new model.ChartModel({id: 't', mark: 'line', x: {kind: 'time'}, series: ['s']});
    m.applySnapshot({x: {kind: 'time', domain: [0, 10]}, series: [{name: 's', points: [[1, 10], [3, 30], [5, 50]]}]});
    m.applyAppend({points: [{series: 's', x: 4, y: 40}, {series: 's', x: 6, y: 60}, {series: 's', x: 3, y: 35},
                            {series: 's', x: 2, y: 20}], evictBefore: 2});
    const c = new model.ChartModel({id: 'c', mark: 'bar', x: {kind: 'category'}, series: ['v']});
    c.applySnapshot({x: {kind: 'category', domain: ['Mon', 'Tue']}, series: [{name: 'v', points: [['Mon', 1], ['Tue', 7]]}]});
    c.applyAppend({points: [{series: 'v', x: 'Mon', y: 5}]});
    // The y domain drawn with is the server's only: none before a snapshot (or in one without it).
    const y = new model.ChartModel({id: 'y', mark: 'line', x: {kind: 'time'}, series: ['s']});
    const drawable = [y.drawable];
    y.applySnapshot({x: {kind: 'time', domain: [0, 10]}, y: {domain: [36, 37]},
                     series: [{name: 's', points: [[1, 36.2], [2, 36.9]]}]});
    drawable.push(y.drawable);
    const yDomains = [y.yDomain];
    y.applyAppend({points: [{series: 's', x: 3, y: 35.5}], y: {domain: [35, 37]}});
    yDomains.push(y.yDomain);
    y.applyAppend({points: [{series: 's', x: 4, y: 90}]});
    yDomains.push(y.yDomain);
    const bare = new model.ChartModel({id: 'b', mark: 'bar', x: {kind: 'category'}, series: ['v']});
    bare.applySnapshot({x: {kind: 'category', domain: ['A']}, series: [{name: 'v', points: [['A', 3]]}]});
    drawable.push(bare.ready, bare.drawable, bare.yDomain);
    const may = geometry.timeTicks([Date.UTC(2022, 4, 1), Date.UTC(2022, 4, 30)], 5);
    // Series named only by data: none in the spec, then as the snapshot and appends name them.
    const named = new model.ChartModel({id: 'n', mark: 'line', x: {kind: 'time'}, series: []});
    const seriesSeen = [named.series.map(x => x.name)];
    named.applySnapshot({x: {kind: 'time', domain: [0, 1]}, y: {domain: [0, 1]}, series: []});
    seriesSeen.push(named.series.map(x => x.name), named.drawable);
    named.applyAppend({points: [{series: 'user', x: 5, y: 1}]});
    named.applyAppend({points: [{series: 'system', x: 6, y: 2}, {series: 'user', x: 6, y: 3}]});
    seriesSeen.push(named.series.map(x => x.name));
    const t0 = Date.UTC(2024, 11, 1, 5, 16, 0);
    const seconds = geometry.timeTicks([t0 + 400, t0 + 20_600], 5);
    const blink = geometry.timeTicks([t0 + 100, t0 + 700], 4);
    const flat = geometry.yScale({y: 10, height: 100}, [5, 5]);
    done({
      backoff,
      band: geometry.categoryBand(1, 4),
      rtlPixel: geometry.fractionToPixel(plot, 0.75, true),
      ticks: geometry.niceTicks(0, 2200, 6),
      dayTicks: may.ticks.map(t => format.formatTimeTick(t, may.step)),
      secondTicks: seconds.ticks.map(t => format.formatTimeTick(t, seconds.step)),
      blinkTicks: blink.ticks.map(t => format.formatTimeTick(t, blink.step)),
      timeLabels: [format.formatX(t0 + 9_000, 'time'), format.formatX(t0, 'time'), format.formatX(Date.UTC(2024, 11, 1), 'time')],
      flatY: [flat(5), flat(7)],
      areaFloors: [[0, 100], [30, 75], [-20, -5], [-10, 10]].map(painter.areaFloor),
      seriesSeen,
      points: m.series[0].points,
      categories: Object.fromEntries(c.series[0].points),
      drawable,
      yDomains,
      numbers: [format.formatNumber(1900), format.formatNumber(36.549), format.formatNumber(12345), format.formatNumber(null)],
      url: connection.socketURL(window.location),
      secureUrl: connection.socketURL({protocol: 'https:', host: 'example.org'}),
    });
  })
  .catch(error => done({error: String(error && error.stack || error)}));
"""

# Runs before the page's own scripts (`Browser.on_new_document`) and taps its WebSocket: every
# `error` the page receives is recorded in window.__receivedErrors, and if LIMITS_JSON is not
# `undefined`, the `limits` of every `welcome` are rewritten before the page reads them (null: a
# welcome without `limits`; an object: merged over the server's), counted in
# window.__welcomesRewritten. This stands in for a server announcing other limits, so the page
# itself needs no test hook.
WIRE_TAP_JS = """
(() => {
  const LIMITS = LIMITS_JSON;
  window.__receivedErrors = [];
  window.__welcomesRewritten = 0;
  const add = WebSocket.prototype.addEventListener;
  WebSocket.prototype.addEventListener = function (type, listener, options) {
    if (type !== 'message' || typeof listener !== 'function') return add.call(this, type, listener, options);
    return add.call(this, type, function (event) {
      let msg = null;
      try { msg = JSON.parse(event.data); } catch { /* not a JSON text frame: passed on as it is */ }
      if (msg && msg.type === 'error') window.__receivedErrors.push(msg);
      if (msg && msg.type === 'welcome' && LIMITS !== undefined) {
        if (LIMITS === null) delete msg.limits; else msg.limits = {...msg.limits, ...LIMITS};
        window.__welcomesRewritten += 1;
        event = new MessageEvent('message', {data: JSON.stringify(msg)});
      }
      return listener.call(this, event);
    }, options);
  };
})();
"""


def wire_tap_js(limits=...):
    """WIRE_TAP_JS recording errors only (`limits` left out), or also replacing the welcome's
    limits: `limits=None` removes them, a dict is merged over the server's."""
    return WIRE_TAP_JS.replace("LIMITS_JSON", "undefined" if limits is ... else json.dumps(limits))


# Imports the page's name rule and limits and runs them on names whose verdicts follow the
# server's ViewerName.normalise (NFC, controls and bidi controls removed, White_Space trimmed,
# at most maxNameLength scalars and maxNameBytes bytes of UTF-8).
NAMES_JS = r"""
const done = arguments[arguments.length - 1];
Promise.all([import('/js/names.js'), import('/js/limits.js')])
  .then(([names, limits]) => {
    const v1 = limits.limitsFrom(undefined);
    const check = (raw, lim = v1) => {
      const {name, error} = names.normaliseName(raw, lim);
      return {name, ok: error === null, error};
    };
    done({
      v1,
      partial: limits.limitsFrom({maxNameLength: 100, maxNameBytes: -1, maxHovers: 'x', extra: 5}),
      maxLength: names.nameFieldMaxLength(v1),
      cases: {
        trimmed: check('  Ana\u00a0\u3000'),
        controls: check('A\tn\u0000a\u0085\r\n'),
        bidi: check('\u202eAna\u2066\u2069\u200e\u200f'),
        nfd40: check('e\u0301'.repeat(40)),
        nfc41: check('\u00e9'.repeat(41)),
        emoji40: check('\u{1F600}'.repeat(40)),
        emoji21: check('\u{1F600}'.repeat(21)),
        bytes: check('\u{1F600}'.repeat(41), {...v1, maxNameLength: 100}),
        empty: check(' \t\u202e '),
        bom: check('\ufeffAna'),
        removedBetweenMarks: check('e\u007f\u0301e\u202e\u0308'),
      },
    });
  })
  .catch(error => done({error: String(error && error.stack || error)}));
"""

# Counts a chart's base-canvas pixels painted in its first series' colour inside the top and the
# bottom half of its plot (2 px inset), after the pending repaint.
SERIES_PIXELS_JS = """
const [chart, done] = arguments;
const painted = new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(resolve)));
Promise.all([import('/js/theme.js'), painted]).then(([theme]) => {
  const hex = theme.seriesColor(theme.currentTheme(), 0);
  const want = [1, 3, 5].map(i => parseInt(hex.slice(i, i + 2), 16));
  const canvas = document.querySelector(`[data-chart="${chart}"] canvas.base`);
  const plot = window.chartcast.inspect().charts[chart].plot;
  const scale = canvas.width / canvas.getBoundingClientRect().width;
  const ctx = canvas.getContext('2d');
  const count = (top, height) => {
    const data = ctx.getImageData(Math.round((plot.x + 2) * scale), Math.round(top * scale),
                                  Math.round((plot.width - 4) * scale), Math.round(height * scale)).data;
    let n = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i + 3] > 200 && want.every((v, k) => Math.abs(data[i + k] - v) < 24)) n += 1;
    }
    return n;
  };
  const half = plot.height / 2;
  done({colour: hex, top: count(plot.y + 2, half - 2), bottom: count(plot.y + half, half - 2)});
}).catch(error => done({error: String(error && error.stack || error)}));
"""


# The chart ids of the grid's panels in DOM order.
PANEL_ORDER_JS = """
return [...document.querySelectorAll('#grid > section[data-chart]')].map(section => section.dataset.chart);
"""

# Classifies a chart canvas's pixels inside a box of visual plot fractions [left, top, right, bottom]
# after the pending repaint: those of series `index`'s colour, opaque (alpha > 200) or translucent
# (16 < alpha <= 200, e.g. an area's fill over nothing), plus the mean alpha of every pixel.
SERIES_REGION_JS = """
const [chart, layer, index, left, top, right, bottom, done] = arguments;
const painted = new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(resolve)));
Promise.all([import('/js/theme.js'), painted]).then(([theme]) => {
  const hex = theme.seriesColor(theme.currentTheme(), index);
  const want = [1, 3, 5].map(i => parseInt(hex.slice(i, i + 2), 16));
  const canvas = document.querySelector(`[data-chart="${chart}"] canvas.${layer}`);
  const plot = window.chartcast.inspect().charts[chart].plot;
  const scale = canvas.width / canvas.getBoundingClientRect().width;
  const sx = Math.max(0, Math.round((plot.x + left * plot.width) * scale));
  const sy = Math.max(0, Math.round((plot.y + top * plot.height) * scale));
  const sw = Math.max(1, Math.min(canvas.width - sx, Math.round((right - left) * plot.width * scale)));
  const sh = Math.max(1, Math.min(canvas.height - sy, Math.round((bottom - top) * plot.height * scale)));
  const data = canvas.getContext('2d').getImageData(sx, sy, sw, sh).data;
  let opaque = 0, translucent = 0, alpha = 0;
  for (let i = 0; i < data.length; i += 4) {
    const a = data[i + 3];
    alpha += a;
    if (a <= 16 || !want.every((v, k) => Math.abs(data[i + k] - v) < 24)) continue;
    if (a > 200) opaque += 1; else translucent += 1;
  }
  const total = data.length / 4;
  done({colour: hex, total, opaque, translucent, meanAlpha: alpha / total});
}).catch(error => done({error: String(error && error.stack || error)}));
"""

# Runs before the page's own scripts (`Browser.on_new_document`) and lets a test control the page's
# WebSocket: window.__dropConnection() closes it and, while window.__blockSockets is true, every new
# one is refused by the server (the page keeps retrying, as if the server were away);
# window.__deliver(msg) hands the page a message as if the server had sent it on the open socket.
SOCKET_CONTROL_JS = """
(() => {
  const Native = window.WebSocket;
  const sockets = [];
  window.__blockSockets = false;
  window.WebSocket = class extends Native {
    constructor(url, protocols) {
      // A same-origin path without a WebSocket endpoint (404): the page's Content-Security-Policy
      // allows only its own origin, so the refusal must come from the server itself.
      super(window.__blockSockets ? `ws://${location.host}/no-socket-here` : url, protocols);
      sockets.push(this);
    }
  };
  window.__dropConnection = () => sockets[sockets.length - 1].close();
  window.__deliver = (msg) => sockets[sockets.length - 1].dispatchEvent(
    new MessageEvent('message', {data: JSON.stringify(msg)}));
})();
"""

# Dispatches wheel events on a chart in one task, at a visual plot fraction: `deltas` are deltaY
# values in CSS px (deltaMode 0), `ctrl` marks them as a trackpad pinch (Chromium sends those as
# ctrl+wheel). Returns how many the page cancelled (a zoomable chart cancels every one).
WHEEL_JS = """
const [chart, fx, fy, deltas, ctrl] = arguments;
const canvas = document.querySelector(`[data-chart="${chart}"] canvas.overlay`);
const plot = window.chartcast.inspect().charts[chart].plot;
const rect = canvas.getBoundingClientRect();
const clientX = rect.left + plot.x + fx * plot.width, clientY = rect.top + plot.y + fy * plot.height;
let cancelled = 0;
for (const deltaY of deltas) {
  const event = new WheelEvent('wheel', {bubbles: true, cancelable: true, clientX, clientY, deltaY, deltaMode: 0,
                                         ctrlKey: Boolean(ctrl)});
  if (!canvas.dispatchEvent(event)) cancelled += 1;
}
return cancelled;
"""

# Dispatches a two-finger touch pinch on a chart as Pointer Events (ids 11 and 12): both fingers
# down at visual plot fractions `start`, one move per animation frame along to `end`, then up.
# Resolves once the last finger is up.
PINCH_JS = """
const [chart, start, end, steps, done] = arguments;
const canvas = document.querySelector(`[data-chart="${chart}"] canvas.overlay`);
const plot = window.chartcast.inspect().charts[chart].plot;
const rect = canvas.getBoundingClientRect();
const y = rect.top + plot.y + plot.height / 2;
const at = (f) => rect.left + plot.x + f * plot.width;
const fire = (type, id, f) => canvas.dispatchEvent(new PointerEvent(type, {
  bubbles: true, cancelable: true, pointerId: id, pointerType: 'touch', isPrimary: id === 11,
  clientX: at(f), clientY: y, button: type === 'pointermove' ? -1 : 0, buttons: type === 'pointerup' ? 0 : 1}));
const frame = () => new Promise(resolve => requestAnimationFrame(resolve));
(async () => {
  fire('pointerdown', 11, start[0]);
  await frame();
  fire('pointerdown', 12, start[1]);
  for (let i = 1; i <= steps; i += 1) {
    await frame();
    const t = i / steps;
    fire('pointermove', 11, start[0] + (end[0] - start[0]) * t);
    fire('pointermove', 12, start[1] + (end[1] - start[1]) * t);
  }
  await frame();
  fire('pointerup', 12, end[1]);
  fire('pointerup', 11, end[0]);
  await frame();
  done(true);
})().catch(error => done({error: String(error && error.stack || error)}));
"""

# Imports the page's zoom and model modules and runs their pure parts on known inputs: the zoom
# arithmetic, the clamping of a view to what the server takes, and a model zoomed by a snapshot's
# `view` taking appends that describe the live window.
ZOOM_MODULES_JS = """
const done = arguments[arguments.length - 1];
Promise.all([import('/js/zoom.js'), import('/js/model.js')])
  .then(([zoom, model]) => {
    const m = new model.ChartModel({id: 'z', mark: 'line', x: {kind: 'linear'}, series: ['s']});
    m.applySnapshot({x: {kind: 'linear', domain: [0, 100]}, y: {domain: [0, 10]},
                     series: [{name: 's', points: [[10, 1], [50, 5], [90, 9]]}]});
    const live = {view: m.view, domain: [...m.domain], live: [...m.liveDomain]};
    m.applySnapshot({x: {kind: 'linear', domain: [40, 60]}, y: {domain: [0, 10]}, view: {from: 40, to: 60},
                     series: [{name: 's', points: [[50, 5]]}]});
    const zoomed = {view: m.view, domain: [...m.domain], fraction: m.fractionOf(45)};
    m.applyAppend({points: [{series: 's', x: 55, y: 20}], x: {kind: 'linear', domain: [10, 110]},
                   y: {domain: [0, 20]}});
    const appended = {domain: [...m.domain], live: [...m.liveDomain], y: [...m.yDomain],
                      points: m.series[0].points.map(p => [...p])};
    m.applyAppend({points: [{series: 's', x: 57, y: 2}], y: {domain: [0, 5]}});
    const narrower = [...m.yDomain];
    m.applySnapshot({x: {kind: 'linear', domain: [10, 110]}, y: {domain: [0, 20]},
                     series: [{name: 's', points: [[55, 20]]}]});
    const back = {view: m.view, domain: [...m.domain], live: [...m.liveDomain]};
    const c = new model.ChartModel({id: 'c', mark: 'bar', x: {kind: 'category'}, series: ['v']});
    c.applySnapshot({x: {kind: 'category', domain: ['a']}, y: {domain: [0, 1]}, view: {from: 0, to: 1},
                     series: [{name: 'v', points: [['a', 1]]}]});
    const t = 1733011200000;
    done({
      live, zoomed, appended, narrower, back, categoryView: c.view,
      zoomIn: zoom.zoomDomain([0, 100], 25, 0.25, 0.5),
      zoomOut: zoom.zoomDomain([0, 100], 50, 0.5, 4),
      zoomHuge: zoom.zoomDomain([0, 1e15], 0, 0.5, 1e6),
      minTime: zoom.minViewSpan('time', [t, t + 60_000], [t, t + 1]),
      minLinear: zoom.minViewSpan('linear', [0, 1e6], [0, 1]),
      tiny: zoom.clampView([t, t + 0.001], zoom.minViewSpan('time', null, [t, t])),
      reversed: zoom.clampView([5, 1], 1e-6),
      beyond: zoom.clampView([9.9e14, 1.2e15], 1),
      wide: zoom.clampView([-3e15, 3e15], 1),
      nonFinite: [zoom.clampView([0, Infinity], 1), zoom.clampView([NaN, 1], 1)],
    });
  })
  .catch(error => done({error: String(error && error.stack || error)}));
"""
