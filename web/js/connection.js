/**
 * The WebSocket to the server: protocol v1 at `/ws` on the page's own host
 * (`wss:` under https), subprotocol `chartcast.v1`, one JSON object per text
 * frame. Reconnects forever with exponential backoff and jitter.
 */

export const SUBPROTOCOL = 'chartcast.v1';

/** Failed attempts in a row after which the status reads "offline". */
const OFFLINE_AFTER = 6;

/**
 * The reconnect delay before attempt `attempt` (0-based): 250 ms doubling up
 * to 5 s, with "equal jitter" (between half and all of it) so that viewers
 * dropped together do not return together.
 * @param {number} attempt
 * @param {() => number} [random]
 * @returns {number} milliseconds
 */
export function backoffDelay(attempt, random = Math.random) {
  const ceiling = Math.min(5000, 250 * 2 ** Math.min(attempt, 10));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/**
 * The `?token=…` to forward from the page's own address (a server started
 * with `--viewer-token` needs it on `/ws` and `/api` reads), or ''.
 */
export function tokenQuery(location) {
  const token = new URLSearchParams(location.search).get('token');
  return token ? `?token=${encodeURIComponent(token)}` : '';
}

/** The WebSocket URL for a page location, with the page's `token` forwarded. */
export function socketURL(location) {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}/ws${tokenQuery(location)}`;
}

/** The URL of an API read on the page's own server, with the page's `token` forwarded. */
export function apiURL(path, location) {
  return `${location.protocol}//${location.host}${path}${tokenQuery(location)}`;
}

/**
 * A self-healing connection.
 *
 * `onStatus` gets 'connecting' | 'connected' | 'reconnecting' | 'offline'
 * (the browser is offline, or the server has been unreachable for several
 * attempts; retries go on at the capped delay) | 'unauthorized' (a socket
 * that never opened, and the API read at `accessURL` answered 401: the
 * token is missing or wrong, so retrying cannot help and stops);
 * 'connected' is reported by the owner (on `welcome`) through `markConnected`
 * so that the status means "receiving state", not merely "socket open".
 */
export class Connection {
  /**
   * @param {string} url
   * @param {{onMessage:(msg:object) => void, onStatus:(status:string, detail?:string) => void}} handlers
   * @param {string} [accessURL] an API read asked, when a socket fails to open, whether access was refused
   */
  constructor(url, handlers, accessURL) {
    this.url = url;
    this.handlers = handlers;
    this.accessURL = accessURL;
    this.socket = null;
    this.attempt = 0;
    this.timer = 0;
    this.closedByUser = false;
    window.addEventListener('online', () => this.#retryNow());
    window.addEventListener('offline', () => this.handlers.onStatus('offline'));
  }

  /** Opens the socket (first connection or a retry). */
  connect() {
    clearTimeout(this.timer);
    this.timer = 0;
    this.closedByUser = false;
    if (this.attempt === 0) this.handlers.onStatus('connecting');
    let socket;
    try {
      socket = new WebSocket(this.url, SUBPROTOCOL);
    } catch (error) {
      this.#scheduleRetry(String(error));
      return;
    }
    this.socket = socket;
    let opened = false;
    socket.addEventListener('open', () => { opened = true; });
    socket.addEventListener('message', (event) => {
      if (this.socket !== socket || typeof event.data !== 'string') return;
      let msg;
      try { msg = JSON.parse(event.data); } catch { return; }
      if (msg && typeof msg.type === 'string') this.handlers.onMessage(msg);
    });
    socket.addEventListener('close', (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (this.closedByUser) return;
      if (!opened && this.accessURL) {
        this.#checkAccess(`closed (${event.code})`);
      } else {
        this.#scheduleRetry(`closed (${event.code})`);
      }
    });
  }

  /** Called by the owner once the server's `welcome` arrived. */
  markConnected() {
    this.attempt = 0;
    this.handlers.onStatus('connected');
  }

  /**
   * Sends one message if the socket is open.
   * @returns {boolean} whether it was sent
   */
  send(message) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  /** Whether messages can be sent now. */
  get isOpen() {
    return Boolean(this.socket && this.socket.readyState === WebSocket.OPEN);
  }

  /** Closes for good (no reconnect). */
  close() {
    this.closedByUser = true;
    clearTimeout(this.timer);
    this.socket?.close(1000);
  }

  /** A socket never opened: 401 from the API means the token is missing or wrong. */
  async #checkAccess(detail) {
    let status = 0;
    try {
      status = (await fetch(this.accessURL, { cache: 'no-store' })).status;
    } catch { /* unreachable: retry as usual */ }
    if (this.closedByUser || this.socket) return;
    if (status === 401) {
      this.handlers.onStatus('unauthorized', 'the server needs a valid viewer token: open the page with ?token=…');
      return;
    }
    this.#scheduleRetry(detail);
  }

  #scheduleRetry(detail) {
    if (this.timer) return;
    const delay = backoffDelay(this.attempt);
    this.attempt += 1;
    const offline = navigator.onLine === false || this.attempt > OFFLINE_AFTER;
    this.handlers.onStatus(offline ? 'offline' : 'reconnecting', detail);
    this.timer = setTimeout(() => {
      this.timer = 0;
      this.connect();
    }, delay);
  }

  #retryNow() {
    if (this.socket) return;
    this.attempt = 0;
    this.connect();
  }
}
