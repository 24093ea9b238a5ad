"""Helpers for the dashboard's real-browser tests: the server process and a headless
Chromium driven through chromedriver, with the page's state, texts and canvas pixels
read through `execute_script`, and pointer input sent as real W3C actions."""

import json
import os
import signal
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.pointer_input import PointerInput
from selenium.webdriver.common.actions.wheel_input import ScrollOrigin
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from page_scripts import (AFTER_PAINT_JS, PANEL_ORDER_JS, PINCH_JS, PIXELS_JS, POINT_JS, SERIES_REGION_JS, SPY_JS,
                          WHEEL_JS)

CHROMIUM = os.environ.get("CHROMIUM_BIN", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER_BIN", "/usr/bin/chromedriver")


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(predicate, what, describe=None, timeout=10.0, interval=0.1):
    """Polls `predicate` until it is truthy; fails with `what` (and `describe()`) on timeout."""
    deadline = time.monotonic() + timeout
    last_error = None
    while time.monotonic() < deadline:
        try:
            value = predicate()
            if value:
                return value
        except Exception as error:  # the page may be reloading; keep polling
            last_error = error
        time.sleep(interval)
    detail = ""
    if describe is not None:
        try:
            detail = f"; last seen: {describe()!r}"
        except Exception as error:
            detail = f"; could not describe: {error}"
    if last_error is not None:
        detail += f"; last error: {last_error}"
    raise AssertionError(f"timed out after {timeout:.0f} s waiting until {what}{detail}")


def self_signed_certificate(directory):
    """A certificate for localhost / 127.0.0.1 and its key, made by the real `openssl` command in
    `directory` (valid for one day). Returns (certificate path, key path)."""
    certificate, key = Path(directory) / "server.crt", Path(directory) / "server.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
                    "-out", str(certificate), "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return str(certificate), str(key)


class ServerProcess:
    """The chartcast binary on 127.0.0.1:<port>, serving web/ with a 0.5 s tick; over HTTPS
    when given a certificate and key (`tls=(certificate, key)`);
    `extra_args` go to the command line."""

    def __init__(self, binary, port, web_root, tls=None, extra_args=()):
        self.binary = str(binary)
        self.extra_args = list(extra_args)
        self.port = port
        self.web_root = str(web_root)
        self.tls = tls
        self.scheme = "https" if tls else "http"
        # The test's own requests accept the self-signed certificate.
        self.ssl_context = ssl._create_unverified_context() if tls else None
        self.process = None
        self.log_dir = Path(tempfile.mkdtemp(prefix="chartcast-browser-"))
        self.starts = 0

    def url(self, path):
        return f"{self.scheme}://127.0.0.1:{self.port}{path}"

    def start(self, timeout=20.0):
        """Starts the server and waits for `GET /healthz` → 200 `ok` (retrying while the
        port is still held by the previous run)."""
        deadline = time.monotonic() + timeout
        while True:
            self.starts += 1
            log = open(self.log_dir / f"server-{self.starts}.log", "wb")
            self.process = subprocess.Popen(
                [self.binary, "--host", "127.0.0.1", "--port", str(self.port),
                 "--web-root", self.web_root, "--tick", "0.5", "--data", "none", *self.extra_args]
                + (["--tls-cert", self.tls[0], "--tls-key", self.tls[1]] if self.tls else []),
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            log.close()
            while time.monotonic() < deadline and self.process.poll() is None:
                if self._healthy():
                    return
                time.sleep(0.1)
            if self.process.poll() is None or time.monotonic() >= deadline:
                self.stop()
                raise RuntimeError(f"server not healthy within {timeout:.0f} s: {self.log_tail()}")
            time.sleep(0.3)  # exited early (port busy?): try again until the deadline

    def api(self, method, path, body=None, content_type="application/json"):
        """One request to the server's HTTP API from loopback (writes need no token there): `body` is
        sent as JSON (bytes as they are, with `content_type`). Returns (status, parsed JSON or None)."""
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
        request = urllib.request.Request(self.url(path), data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(request, timeout=10, context=self.ssl_context) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read()
        return status, (json.loads(raw) if raw.strip() else None)

    def chart_ids(self):
        """The ids of the server's charts, in dashboard order (`GET /api/charts`)."""
        status, body = self.api("GET", "/api/charts")
        if status != 200:
            raise AssertionError(f"GET /api/charts answered {status}: {body}")
        return [spec["id"] for spec in body["charts"]]

    def _healthy(self):
        try:
            with urllib.request.urlopen(self.url("/healthz"), timeout=1, context=self.ssl_context) as response:
                return response.status == 200 and response.read().strip() == b"ok"
        except OSError:
            return False

    def stop(self):
        """SIGTERM, then SIGKILL if the server has not exited within 5 s."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        self.process = None

    def log_tail(self, lines=20):
        logs = sorted(self.log_dir.glob("server-*.log"))
        if not logs:
            return "(no log)"
        return "\n".join(logs[-1].read_text(errors="replace").splitlines()[-lines:])


class RedisProcess:
    """A real redis-server (Debian's) on 127.0.0.1:<port> for one test: no persistence, its
    working directory and log in a temporary directory, stopped and removed by `stop()`."""

    def __init__(self, port, binary="/usr/bin/redis-server"):
        self.port = port
        self.binary = binary
        self.directory = tempfile.mkdtemp(prefix="chartcast-redis-")
        self.process = None

    @property
    def url(self):
        return f"redis://127.0.0.1:{self.port}"

    def start(self, timeout=10.0):
        """Starts the server and waits until it answers PING."""
        if not Path(self.binary).is_file():
            raise RuntimeError(f"{self.binary} is missing (scripts/install-deps.sh test)")
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", self.directory, "--daemonize", "no", "--loglevel", "warning", "--logfile", f"{self.directory}/redis.log"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("redis-server did not answer PING")

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=5)
        self.process = None
        subprocess.run(["rm", "-rf", self.directory], check=False)


class Browser:
    """One headless Chromium showing the dashboard.

    Fractions passed to the pointer helpers are *visual* (0 = left edge of the plot),
    so right-to-left tests say where on screen they point.
    """

    def __init__(self, name, width, height, scale=1, accept_self_signed=False):
        self.name = name
        self.scale = scale
        options = Options()
        options.binary_location = CHROMIUM
        for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                    "--hide-scrollbars", "--mute-audio", "--no-first-run",
                    f"--window-size={width},{height}", f"--force-device-scale-factor={scale}"):
            options.add_argument(arg)
        if accept_self_signed:
            options.add_argument("--ignore-certificate-errors")  # for the page and its wss:// socket
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER, log_path=os.devnull), options=options)
        self.driver.set_script_timeout(10)
        self.logs = []
        self.pressed = False

    def quit(self):
        try:
            self.driver.quit()
        except Exception:
            pass

    # -- page state --------------------------------------------------------------------

    def open(self, url):
        self.pressed = False
        self.driver.get(url)

    def on_new_document(self, script):
        """Runs `script` at the start of every page this browser loads from now on, before the
        page's own scripts (Chrome DevTools `Page.addScriptToEvaluateOnNewDocument`)."""
        self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": script})

    def wait_ready(self, timeout=15):
        """Waits until the page is connected and every chart has data and a plot frame."""
        def ready():
            state = self.inspect()
            return (state and state["status"] == "connected" and len(state["charts"]) > 0
                    and all(c["ready"] and c["points"] > 0 and c["plot"] for c in state["charts"].values()))
        wait_until(ready, f"{self.name} is connected with data", self.inspect, timeout=timeout)
        time.sleep(0.15)  # let the next animation frame paint

    def inspect(self):
        return self.driver.execute_script("return window.chartcast ? window.chartcast.inspect() : null")

    def wait_chart(self, chart, points=None, timeout=10):
        """Waits until the page shows `chart` with its snapshot and plot frame (and, if given, that
        many points), then lets the next animation frame paint. Returns its `inspect()` entry."""
        def shown():
            info = (self.inspect() or {"charts": {}})["charts"].get(chart)
            return (info and info["ready"] and info["plot"] and (points is None or info["points"] == points)
                    and self.panel_order().count(chart) == 1)
        wait_until(shown, f"{self.name} shows chart {chart!r}" + (f" with {points} points" if points is not None else ""),
                   lambda: (self.inspect() or {"charts": {}})["charts"].get(chart), timeout=timeout)
        time.sleep(0.15)
        return self.inspect()["charts"][chart]

    def wait_chart_gone(self, chart, timeout=10):
        """Waits until the page shows no panel for `chart`."""
        wait_until(lambda: chart not in self.inspect()["charts"] and chart not in self.panel_order(),
                   f"{self.name} removes chart {chart!r}", self.panel_order, timeout=timeout)

    def panel_order(self):
        """The chart ids of the grid's panels, top-left first (DOM order)."""
        return self.driver.execute_script(PANEL_ORDER_JS)

    def text_of(self, selector):
        return self.driver.execute_script(
            "const el = document.querySelector(arguments[0]); return el ? el.textContent : null", selector)

    def status_text(self):
        return self.text_of("#status")

    def viewer_names(self):
        return self.driver.execute_script(
            "return [...document.querySelectorAll('#viewers li')].map(li => li.textContent)")

    def selection_text(self, chart):
        return self.text_of(f'[data-chart="{chart}"] .selection-text')

    def live_text(self):
        return self.text_of("#live")

    def range_summary(self, chart):
        return self.driver.execute_script(
            "const el = document.querySelector(`[data-chart=\"${arguments[0]}\"] .range-summary`);"
            "return !el || el.hidden ? '' : el.innerText", chart)

    def range_rows(self, chart):
        return self.driver.execute_script(
            "return [...document.querySelectorAll(`[data-chart=\"${arguments[0]}\"] .range-summary tbody tr`)]"
            ".map(tr => [...tr.cells].map(td => td.textContent))", chart)

    def _collect_logs(self):
        self.logs.extend(self.driver.get_log("browser"))

    def console_errors(self):
        """Every SEVERE console entry since the browser started."""
        self._collect_logs()
        return [entry["message"] for entry in self.logs if entry.get("level") == "SEVERE"]

    def server_errors(self):
        """Protocol `error` messages the page received (it logs them as warnings)."""
        self._collect_logs()
        return [entry["message"] for entry in self.logs if "chartcast: server error" in entry.get("message", "")]

    def save_screenshot(self, path):
        self.driver.save_screenshot(str(path))

    # -- pixels ------------------------------------------------------------------------

    def pixels(self, chart, layer, rect=None):
        """Painted pixels of a chart canvas, read after the page's pending repaint: the texts change
        as a message arrives, the canvases on the next animation frame."""
        x, y, w, h = rect if rect else (None, None, None, None)
        self.driver.execute_async_script(AFTER_PAINT_JS)
        return self.driver.execute_script(PIXELS_JS, chart, layer, x, y, w, h)

    def series_pixels(self, chart, series_index, left, top, right, bottom, layer="base"):
        """Pixels of one series' colour on a chart canvas inside a box given in visual fractions of
        the plot (0, 0 = its top-left corner; values outside 0…1 reach beyond it, e.g. a negative top
        for the legend), after the pending repaint: `opaque` (lines, dots, bars) and `translucent`
        (area fills) counts of that colour, `total` pixels and their `meanAlpha`."""
        result = self.driver.execute_async_script(SERIES_REGION_JS, chart, layer, series_index,
                                                  left, top, right, bottom)
        if "error" in result:
            raise AssertionError(f"{self.name}: {result['error']}")
        return result

    def _plot(self, chart):
        state = self.inspect()
        return state["charts"][chart]["plot"], state["rtl"]

    def visual_fraction_pixels(self, chart, left_fraction, right_fraction):
        """Painted overlay pixels over the plot's height between two visual fractions
        (2 px inset on each side)."""
        plot, _ = self._plot(chart)
        left = plot["x"] + left_fraction * plot["width"] + 2
        right = plot["x"] + right_fraction * plot["width"] - 2
        return self.pixels(chart, "overlay", (left, plot["y"] + 1, max(1, right - left), plot["height"] - 2))

    def fraction_pixels(self, chart, from_fraction, to_fraction):
        """Like `visual_fraction_pixels`, for data-order fractions (mirrored under RTL)."""
        _, rtl = self._plot(chart)
        if rtl:
            from_fraction, to_fraction = 1 - to_fraction, 1 - from_fraction
        return self.visual_fraction_pixels(chart, from_fraction, to_fraction)

    def band_pixels(self, chart, index, count):
        """Painted overlay pixels inside category `index`'s band (data order)."""
        return self.fraction_pixels(chart, index / count, (index + 1) / count)

    def visual_band_pixels(self, chart, index, count):
        """Painted overlay pixels inside the `index`-th band from the left on screen."""
        return self.visual_fraction_pixels(chart, index / count, (index + 1) / count)

    # -- input -------------------------------------------------------------------------

    def point(self, chart, fraction_x, fraction_y):
        """Viewport coordinates of a visual position in the chart's plot (scrolls it into view)."""
        x, y = self.driver.execute_script(POINT_JS, chart, fraction_x, fraction_y)
        return int(round(x)), int(round(y))

    def _mouse(self, duration=30):
        return ActionBuilder(self.driver, duration=duration)

    def hover(self, chart, fraction_x, fraction_y):
        """Moves the mouse onto the chart in small steps (so the page sees pointer moves)."""
        x, y = self.point(chart, fraction_x, fraction_y)
        actions = self._mouse()
        for dx in (-12, -6, 0):
            actions.pointer_action.move_to_location(max(0, x + dx), y)
            actions.pointer_action.pause(0.03)
        actions.perform()

    def leave(self, chart):
        """Moves the mouse off every chart (to the page header)."""
        actions = self._mouse()
        actions.pointer_action.move_to_location(2, 2)
        actions.perform()
        self.driver.execute_script("window.scrollTo(0, 0)")

    def press(self, chart, fraction_x, fraction_y):
        x, y = self.point(chart, fraction_x, fraction_y)
        actions = self._mouse()
        actions.pointer_action.move_to_location(x, y)
        actions.pointer_action.pause(0.05)
        actions.pointer_action.pointer_down()
        actions.pointer_action.pause(0.05)
        actions.perform()
        self.pressed = True

    def move_pressed(self, chart, fractions_x, fraction_y=0.6):
        for fx in fractions_x:
            x, y = self.point(chart, fx, fraction_y)
            actions = self._mouse(duration=60)
            actions.pointer_action.move_to_location(x, y)
            actions.pointer_action.pause(0.05)
            actions.perform()

    def release_pointer(self):
        if not self.pressed:
            return
        self.pressed = False
        actions = self._mouse()
        actions.pointer_action.pointer_up()
        actions.perform()

    def tap(self, chart, fraction_x, fraction_y):
        """A touch tap (press and release without moving)."""
        x, y = self.point(chart, fraction_x, fraction_y)
        finger = PointerInput(interaction.POINTER_TOUCH, "finger")
        actions = ActionBuilder(self.driver, mouse=finger, duration=30)
        actions.pointer_action.move_to_location(x, y)
        actions.pointer_action.pointer_down()
        actions.pointer_action.pause(0.08)
        actions.pointer_action.pointer_up()
        actions.perform()

    def wheel(self, chart, fraction_x, fraction_y, delta_y, delta_x=0):
        """Turns the mouse wheel over a visual position of the chart's plot (real input: a W3C wheel
        action); a negative `delta_y` (CSS px) scrolls up, which zooms in."""
        x, y = self.point(chart, fraction_x, fraction_y)
        ActionChains(self.driver).scroll_from_origin(ScrollOrigin.from_viewport(x, y), delta_x, delta_y).perform()

    def dispatch_wheel(self, chart, fraction_x, fraction_y, deltas, ctrl=False):
        """Dispatches one wheel event per `deltas` entry (deltaY, CSS px) in a single task, so they
        fall in one animation frame; `ctrl` makes them a trackpad pinch. Returns how many the page
        cancelled."""
        self.point(chart, 0.5, 0.5)  # scroll into view
        return self.driver.execute_script(WHEEL_JS, chart, fraction_x, fraction_y, list(deltas), ctrl)

    def double_click(self, chart, fraction_x, fraction_y):
        """A real mouse double-click at a visual position of the chart's plot."""
        x, y = self.point(chart, fraction_x, fraction_y)
        actions = self._mouse()
        actions.pointer_action.move_to_location(x, y)
        actions.pointer_action.pause(0.05)
        for _ in range(2):
            actions.pointer_action.pointer_down()
            actions.pointer_action.pointer_up()
        actions.perform()

    def pinch(self, chart, start, end, steps=6):
        """A two-finger touch pinch dispatched as Pointer Events: the fingers go down at visual plot
        fractions `start` (a pair), move in `steps` animation frames to `end`, and lift."""
        self.point(chart, 0.5, 0.5)
        result = self.driver.execute_async_script(PINCH_JS, chart, list(start), list(end), steps)
        if isinstance(result, dict) and "error" in result:
            raise AssertionError(f"{self.name}: {result['error']}")

    def zoom_badge(self, chart):
        """The chart's "Zoomed" badge: whether it shows, its text and accessible role, or None."""
        return self.driver.execute_script(
            "const b = document.querySelector(`[data-chart=\"${arguments[0]}\"] .zoom-badge`);"
            "if (!b) return null; const r = b.getBoundingClientRect();"
            "return {shown: !b.hidden && r.width > 0 && r.height > 0, text: b.textContent, tag: b.tagName,"
            " title: b.title, inHeader: Boolean(b.closest('.panel-head'))}", chart)

    def click_zoom_badge(self, chart):
        """Clicks the chart's "Zoomed" badge (a button) with the real mouse."""
        self.driver.find_element(By.CSS_SELECTOR, f'[data-chart="{chart}"] .zoom-badge').click()

    def set_name(self, name):
        """Types a name into the name form and submits it."""
        field = self.driver.find_element(By.ID, "name-input")
        field.clear()
        field.send_keys(name)
        self.submit_name()

    def submit_name(self):
        """Clicks the name form's Set button."""
        self.driver.find_element(By.CSS_SELECTOR, "#name-form button").click()

    def paste_name(self, name, submit=True):
        """Puts `name` into the name field as one edit (an `input` event), for text chromedriver
        cannot type (characters beyond the BMP, combining sequences), and optionally submits it."""
        self.driver.execute_script(
            "const field = document.getElementById('name-input'); field.focus(); field.value = arguments[0];"
            "field.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: 'insertFromPaste'}))", name)
        if submit:
            self.submit_name()

    def name_field(self):
        """The name field and the error beside it: value, maxLength, aria attributes, error text."""
        return self.driver.execute_script(
            "const field = document.getElementById('name-input'), error = document.getElementById('name-error');"
            "const shown = error.getBoundingClientRect(), box = field.getBoundingClientRect();"
            "return {value: field.value, maxLength: field.maxLength, invalid: field.getAttribute('aria-invalid'),"
            " describedBy: field.getAttribute('aria-describedby'), error: error.textContent,"
            " errorRole: error.getAttribute('role'), errorVisible: shown.width > 0 && shown.height > 0,"
            " errorBeside: Math.abs((shown.top + shown.bottom) / 2 - (box.top + box.bottom) / 2) < box.height * 2"
            "   && error.closest('form') === field.form}")

    def stored_name(self):
        """The name the page remembers in localStorage (None if none)."""
        return self.driver.execute_script("return localStorage.getItem('chartcast.name')")

    def received_errors(self):
        """`error` messages recorded by `wire_tap_js` (installed with `on_new_document`)."""
        return self.driver.execute_script("return window.__receivedErrors || []")

    def spy_on_sent_messages(self):
        """Records every message the page sends from now on (until the page reloads)."""
        self.driver.execute_script(SPY_JS)

    def sent(self, message_type):
        """Recorded messages of one type, oldest first."""
        return self.driver.execute_script(
            "return (window.__sentMessages || []).map(m => JSON.parse(m))"
            ".filter(m => m.type === arguments[0])", message_type)

    def focus_chart(self, chart):
        self.driver.execute_script(
            "document.querySelector(`[data-chart=\"${arguments[0]}\"] canvas.overlay`).focus()", chart)

    def keys(self, name, shift=False):
        """Presses one key (a `Keys` name) on the focused element, optionally with Shift."""
        chain = ActionChains(self.driver)
        if shift:
            chain.key_down(Keys.SHIFT)
        chain.send_keys(getattr(Keys, name))
        if shift:
            chain.key_up(Keys.SHIFT)
        chain.perform()
