"""JavaScript run in the page by the browser tests through `execute_script`."""

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
Promise.all(['connection', 'geometry', 'model', 'format'].map(m => import(`/js/${m}.js`)))
  .then(([connection, geometry, model, format]) => {
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
    const may = geometry.timeTicks([Date.UTC(2022, 4, 1), Date.UTC(2022, 4, 30)], 5);
    done({
      backoff,
      band: geometry.categoryBand(1, 4),
      rtlPixel: geometry.fractionToPixel(plot, 0.75, true),
      ticks: geometry.niceTicks(0, 2200, 6),
      dayTicks: may.ticks.map(t => format.formatTimeTick(t, may.step)),
      points: m.series[0].points,
      categories: Object.fromEntries(c.series[0].points),
      numbers: [format.formatNumber(1900), format.formatNumber(36.549), format.formatNumber(12345), format.formatNumber(null)],
      url: connection.socketURL(window.location),
      secureUrl: connection.socketURL({protocol: 'https:', host: 'example.org'}),
    });
  })
  .catch(error => done({error: String(error && error.stack || error)}));
"""
