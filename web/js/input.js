/**
 * Turns a chart canvas's Pointer Events (mouse, touch, pen) and keys into
 * protocol v1 `pointer` and `key` messages. The server recognises gestures;
 * the page only reports raw phases, with `move` coalesced to at most one per
 * animation frame. While a two-finger pinch zooms the chart (`zoom.js`) the
 * press is ended with `leave` and no pointer messages go out.
 */

let nextRef = 1;

/** A fresh opaque reference for a message (≤ 64 characters). */
export function makeRef(prefix) {
  const ref = `${prefix}-${nextRef}`;
  nextRef += 1;
  return ref;
}

/**
 * Maps a keydown to a protocol key name, translating visual arrows into data
 * order: under right-to-left, ArrowLeft moves towards later data ("right").
 * @param {KeyboardEvent} event
 * @param {boolean} rtl
 * @returns {string|null}
 */
export function protocolKey(event, rtl) {
  switch (event.key) {
    case 'ArrowLeft': return rtl ? 'right' : 'left';
    case 'ArrowRight': return rtl ? 'left' : 'right';
    case 'Home': return 'home';
    case 'End': return 'end';
    case 'Enter':
    case ' ':
    case 'Spacebar': return 'enter';
    case 'Escape': return 'escape';
    default: return null;
  }
}

/**
 * Listens on `element` and sends pointer and key messages for `chartId`.
 * @param {HTMLElement} element the chart's overlay canvas (focusable)
 * @param {string} chartId
 * @param {(message: object) => void} send
 * @param {() => boolean} isRtl
 * @param {() => boolean} [isPaused] true while pointer input belongs to a pinch
 * @returns {{detach: () => void, cancelPress: () => void}} removes the listeners; ends a press with `leave`
 */
export function attachInput(element, chartId, send, isRtl, isPaused = () => false) {
  let pending = null;
  let frame = 0;
  let pressedId = null;
  let lastPosition = { x: 0, y: 0 };

  const position = (event) => {
    const rect = element.getBoundingClientRect();
    lastPosition = { x: round2(event.clientX - rect.left), y: round2(event.clientY - rect.top) };
    return lastPosition;
  };
  const sendPointer = (phase, pos) => {
    send({ type: 'pointer', chart: chartId, phase, x: pos.x, y: pos.y, ref: makeRef('p') });
  };
  const flush = () => {
    if (frame) cancelAnimationFrame(frame);
    frame = 0;
    if (pending) {
      const pos = pending;
      pending = null;
      sendPointer('move', pos);
    }
  };

  const onDown = (event) => {
    if (isPaused()) return;
    if (event.pointerType === 'mouse' && event.button !== 0) return;
    if (pressedId !== null) return;
    flush();
    pressedId = event.pointerId;
    try { element.setPointerCapture(event.pointerId); } catch { /* pointer already gone */ }
    sendPointer('down', position(event));
  };
  const onMove = (event) => {
    if (isPaused()) return;
    if (pressedId !== null && event.pointerId !== pressedId) return;
    pending = position(event);
    if (!frame) frame = requestAnimationFrame(flush);
  };
  const onUp = (event) => {
    if (event.pointerId !== pressedId) return;
    flush();
    pressedId = null;
    sendPointer('up', position(event));
  };
  const onCancel = (event) => {
    if (event.pointerId !== pressedId) return;
    pending = null;
    flush();
    pressedId = null;
    sendPointer('leave', position(event));
  };
  /** Ends the current press (a second finger turned it into a pinch) as a cancelled one. */
  const cancelPress = () => {
    if (pressedId === null) return;
    const pos = pending ?? lastPosition;
    pending = null;
    flush();
    pressedId = null;
    sendPointer('leave', pos);
  };
  const onLeave = (event) => {
    if (pressedId !== null) return;
    if (event.pointerType === 'touch') return;
    pending = null;
    flush();
    sendPointer('leave', position(event));
  };
  const onKey = (event) => {
    const key = protocolKey(event, isRtl());
    if (!key || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    send({ type: 'key', chart: chartId, key, shift: event.shiftKey && (key === 'left' || key === 'right'), ref: makeRef('k') });
  };

  const listeners = [
    ['pointerdown', onDown], ['pointermove', onMove], ['pointerup', onUp],
    ['pointercancel', onCancel], ['pointerleave', onLeave], ['keydown', onKey],
  ];
  for (const [type, fn] of listeners) element.addEventListener(type, fn);
  const detach = () => {
    for (const [type, fn] of listeners) element.removeEventListener(type, fn);
    if (frame) cancelAnimationFrame(frame);
  };
  return { detach, cancelPress };
}

function round2(v) {
  return Math.round(v * 100) / 100;
}
