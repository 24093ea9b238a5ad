#!/usr/bin/python3
"""Real-browser tests of the ChartCast dashboard page (web/).

Starts the real server (binary from $CHARTCAST_BIN, default .build/debug/chartcast) on a
free loopback port, opens the page in two headless Chromium browsers (A and B, different
window sizes and pixel ratios) and checks that selections made in one are drawn in the
other, that range-dragging, tapping, right-to-left and reconnecting work, that the page
follows the limits announced in `welcome` and shows a refused name beside the name field
(a third browser, C, joins for those), that charts defined, written to, replaced and removed
over the HTTP API while the browsers watch appear, change and go in both (area marks, series
named only by data and empty charts included), that each viewer zooms its own plot of a time or
linear chart (wheel, pinch, double-click back to live) while selections stay shared, and that the
page logs no console errors; and that the page served over HTTPS (a self-signed certificate made
by openssl, Chromium with --ignore-certificate-errors) connects over wss: and shows live data. A second group checks access: a page from another origin cannot
open the socket while the dashboard can, and a server with a viewer token serves the page opened
with `?token=` and shows the page opened without it as refused. A third group runs two servers
joined through a real redis-server (`--redis`) and checks that a hover in a page on one instance
is drawn, with its viewer's name, in a page on the other.
Prints "N passed, N failed" at the end and exits non-zero on any failure.

Run: CHARTCAST_BIN=.build/debug/chartcast /usr/bin/python3 Tests/browser/test_dashboard.py
(CHARTCAST_WEB_ROOT overrides the page directory, e.g. to try a changed copy of web/.)
"""

import contextlib
import functools
import http.server
import os
import sys
import threading
import tempfile
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser_support import (Browser, RedisProcess, ServerProcess, free_port, self_signed_certificate,  # noqa: E402
                             wait_until)
from page_scripts import (DISPATCH_MOVES_JS, MODULES_JS, NAMES_JS, SERIES_PIXELS_JS, SOCKET_CONTROL_JS,  # noqa: E402
                          SPY_JS, ZOOM_MODULES_JS, wire_tap_js)

REPO = Path(__file__).resolve().parents[2]
# The screenshot goes to a temporary file (tests never write into the working tree);
# `make screenshot` points CHARTCAST_SCREENSHOT at docs/screenshot.png to refresh the README's.
SCREENSHOT = Path(os.environ.get("CHARTCAST_SCREENSHOT")
                  or Path(tempfile.gettempdir()) / f"chartcast-screenshot-{os.getpid()}.png")

# What the server announces in `welcome.limits`, and what the page assumes without them.
V1_LIMITS = {"maxMessageBytes": 65536, "maxNameLength": 40, "maxNameBytes": 160, "maxRefLength": 64,
             "messagesPerSecond": 240, "messageBurst": 480, "maxHovers": 8, "maxRangeRows": 500,
             "maxCoordinate": 1000000}

DEMO_CHARTS = ["workouts", "intake", "expenses", "sales", "temperature"]

# 2024-12-01T00:00:00Z and an hour, in epoch ms: x values of the time charts the tests define.
DEC_1 = 1733011200000
HOUR = 3_600_000

SALES_MONTHS = ["January", "February", "March", "April", "May", "June", "July",
                "August", "September", "October", "November", "December"]


class DashboardInTwoBrowsers(unittest.TestCase):
    """One server, browsers A and B, shared by the tests below (which run in name order)."""

    server = None
    a = None
    b = None

    @classmethod
    def setUpClass(cls):
        binary = os.environ.get("CHARTCAST_BIN", str(REPO / ".build" / "debug" / "chartcast"))
        if not Path(binary).is_file():
            raise RuntimeError(f"server binary not found: {binary} (set CHARTCAST_BIN)")
        web_root = os.environ.get("CHARTCAST_WEB_ROOT", str(REPO / "web"))
        cls.server = ServerProcess(binary, free_port(), web_root)
        cls.server.start()
        try:
            cls.a = Browser("A", width=1400, height=1000, scale=1)
            cls.b = Browser("B", width=980, height=1300, scale=2)
            for browser in (cls.a, cls.b):
                browser.open(cls.server.url("/"))
            for browser in (cls.a, cls.b):
                browser.wait_ready()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        for browser in (cls.a, cls.b):
            if browser is not None:
                browser.quit()
        if cls.server is not None:
            cls.server.stop()

    def setUp(self):
        for browser in (self.a, self.b):
            browser.release_pointer()

    @contextlib.contextmanager
    def third_browser(self, *early_scripts, path="/"):
        """A fresh browser C (empty localStorage) showing the dashboard at `path`, with
        `early_scripts` run before the page's own on every load; closed afterwards."""
        c = Browser("C", width=1200, height=900)
        try:
            for script in early_scripts:
                c.on_new_document(script)
            c.open(self.server.url(path))
            c.wait_ready()
            yield c
        finally:
            c.quit()

    def assert_name_error_shown(self, browser, text):
        """The error beside the name field says `text` and the field is marked invalid."""
        wait_until(lambda: text in browser.name_field()["error"],
                   f"{browser.name} shows {text!r} beside the name field", browser.name_field)
        field = browser.name_field()
        self.assertEqual(field["invalid"], "true", "aria-invalid on the name field")
        self.assertIn("name-error", (field["describedBy"] or "").split(), "the field is described by the error")
        self.assertEqual(field["errorRole"], "alert")
        self.assertTrue(field["errorVisible"] and field["errorBeside"], f"the error is shown beside the field: {field}")

    # -- loading -----------------------------------------------------------------------

    def test_1_page_loads_without_console_errors(self):
        for browser in (self.a, self.b):
            state = browser.inspect()
            self.assertEqual(state["status"], "connected", f"{browser.name}: status")
            self.assertEqual(browser.status_text(), "Connected", f"{browser.name}: status indicator")
            self.assertEqual(browser.console_errors(), [], f"{browser.name}: console errors")
            viewers = browser.viewer_names()
            self.assertGreaterEqual(len(viewers), 2, f"{browser.name}: viewers list {viewers}")
            self.assertIn(f"{state['me']['name']} (you)", viewers)

    def test_1b_name_is_sent_and_remembered(self):
        self.b.set_name("Bea")
        wait_until(lambda: "Bea" in self.a.viewer_names(), "A lists B under its new name", self.a.viewer_names)
        # Remembered once the server accepted it (B's viewers list shows it).
        wait_until(lambda: self.b.stored_name() == "Bea", "B remembers its accepted name", self.b.stored_name)
        self.assertIn("Bea (you)", self.b.viewer_names())
        self.assertEqual(self.b.name_field()["error"], "")

    def test_1c_page_reads_limits_from_welcome(self):
        for browser in (self.a, self.b):
            self.assertEqual(browser.inspect()["limits"], V1_LIMITS, f"{browser.name}: the server's limits")
            self.assertEqual(browser.name_field()["maxLength"], 80, "40 characters are at most 80 UTF-16 units")
        # A server announcing smaller limits (C's welcome is rewritten on its way into the page):
        # the field and the check follow them, although this server would take longer names.
        with self.third_browser(wire_tap_js({"maxNameLength": 12, "maxNameBytes": 30})) as c:
            self.assertGreaterEqual(c.driver.execute_script("return window.__welcomesRewritten"), 1)
            self.assertEqual(c.inspect()["limits"], {**V1_LIMITS, "maxNameLength": 12, "maxNameBytes": 30})
            self.assertEqual(c.name_field()["maxLength"], 24)
            c.spy_on_sent_messages()
            c.set_name("Thirteen char")
            self.assert_name_error_shown(c, "at most 12 characters; this one has 13")
            c.paste_name("\U0001F600" * 8)
            self.assert_name_error_shown(c, "at most 30 bytes of UTF-8; this one takes 32")
            time.sleep(0.3)
            self.assertEqual(c.sent("hello"), [], "names over the announced limits are not sent")
            c.set_name("Twelve chars")
            wait_until(lambda: "Twelve chars" in self.a.viewer_names(), "A lists C's 12-character name",
                       self.a.viewer_names)
            self.assertEqual([m["name"] for m in c.sent("hello")], ["Twelve chars"])
            self.assertEqual(c.name_field()["error"], "")
            self.assertEqual(c.console_errors(), [])
        # A server announcing no limits: the page assumes v1's.
        with self.third_browser(wire_tap_js(None)) as c:
            self.assertGreaterEqual(c.driver.execute_script("return window.__welcomesRewritten"), 1)
            self.assertEqual(c.inspect()["limits"], V1_LIMITS)
            self.assertEqual(c.name_field()["maxLength"], 80)

    def test_1d_page_refuses_a_name_over_the_limit_without_sending_it(self):
        with self.third_browser() as c:
            c.spy_on_sent_messages()
            too_long = "\u00e9" * 41  # 41 characters but 82 bytes and 41 UTF-16 units: within maxlength
            c.set_name(too_long)
            self.assertEqual(c.name_field()["value"], too_long, "typed as it is")
            self.assert_name_error_shown(c, "at most 40 characters; this one has 41")
            time.sleep(0.3)
            self.assertEqual(c.sent("hello"), [], "the refused name is not sent")
            self.assertIsNone(c.stored_name(), "the refused name is not stored")
            self.assertNotIn(too_long, self.a.viewer_names())
            # 40 characters in 76 UTF-16 units (a UTF-16 count would refuse it), 149 bytes.
            valid = "Zo\u00eb " + "\U0001F600" * 36
            c.paste_name(valid, submit=False)
            wait_until(lambda: c.name_field()["error"] == "", "editing to a valid name clears the error",
                       c.name_field)
            self.assertIsNone(c.name_field()["invalid"])
            c.submit_name()
            wait_until(lambda: valid in self.a.viewer_names(), "A lists C's valid name", self.a.viewer_names)
            wait_until(lambda: c.stored_name() == valid, "C remembers its accepted name", c.stored_name)
            hellos = c.sent("hello")
            self.assertEqual([m["name"] for m in hellos], [valid])
            self.assertRegex(hellos[0]["ref"], r"^name-\d+$")
            self.assertEqual(c.name_field()["error"], "")
            self.assertEqual(c.console_errors(), [])

    def test_1e_stored_invalid_name_is_not_sent_on_connect(self):
        old = "A name that an older page stored, when it allowed 64 characters!"
        self.assertEqual(len(old), 64)
        with self.third_browser(SPY_JS) as c:
            c.driver.execute_script("localStorage.setItem('chartcast.name', arguments[0])", old)
            c.driver.refresh()
            c.wait_ready()
            self.assert_name_error_shown(c, "at most 40 characters; this one has 64")
            time.sleep(0.3)
            self.assertEqual(c.sent("hello"), [], "the stored name is not sent")
            self.assertIsNone(c.stored_name(), "and is dropped from storage")
            self.assertEqual(c.name_field()["value"], old, "left in the field to be shortened")
            me = c.inspect()["me"]
            self.assertNotEqual(me["name"], old)
            self.assertNotIn(old, self.a.viewer_names())
            wait_until(lambda: me["name"] in self.a.viewer_names(), "A lists C under its default name",
                       self.a.viewer_names)
            self.assertEqual(c.console_errors(), [])

    def test_1f_page_name_rule_matches_the_server(self):
        result = self.a.driver.execute_async_script(NAMES_JS)
        self.assertNotIn("error", result, result.get("error"))
        self.assertEqual(result["v1"], V1_LIMITS)
        self.assertEqual(result["partial"], {**V1_LIMITS, "maxNameLength": 100})
        self.assertEqual(result["maxLength"], 80)
        cases = result["cases"]
        expected = {
            "trimmed": ("Ana", True), "controls": ("Ana", True), "bidi": ("Ana", True),
            "nfd40": ("\u00e9" * 40, True), "nfc41": ("\u00e9" * 41, False),
            "emoji40": ("\U0001F600" * 40, True), "emoji21": ("\U0001F600" * 21, True),
            "bytes": ("\U0001F600" * 41, False), "empty": ("", False), "bom": ("\ufeffAna", True),
            # Removed before NFC, as the server does: é and ë come out precomposed.
            "removedBetweenMarks": ("\u00e9\u00eb", True),
        }
        for case, (name, ok) in expected.items():
            self.assertEqual((cases[case]["name"], cases[case]["ok"]), (name, ok), f"{case}: {cases[case]}")
        self.assertIn("at most 160 bytes of UTF-8; this one takes 164", cases["bytes"]["error"])

    def test_2_five_charts_are_painted(self):
        expected = {"workouts", "intake", "expenses", "sales", "temperature"}
        for browser in (self.a, self.b):
            state = browser.inspect()
            self.assertEqual(set(state["charts"]), expected)
            for chart in expected:
                info = state["charts"][chart]
                self.assertTrue(info["ready"], f"{browser.name}/{chart}: no snapshot")
                self.assertGreater(info["points"], 0, f"{browser.name}/{chart}: no points")
                stats = browser.pixels(chart, "base")
                self.assertGreater(stats["painted"], stats["total"] * 0.02,
                                   f"{browser.name}/{chart}: base canvas nearly blank {stats}")
                self.assertGreaterEqual(stats["colours"], 3, f"{browser.name}/{chart}: {stats}")
                self.assertEqual(stats["width"], round(info["size"]["width"] * browser.scale),
                                 f"{browser.name}/{chart}: canvas not sized to box × devicePixelRatio")
        self.assertEqual(self.a.inspect()["charts"]["sales"]["categories"], SALES_MONTHS)
        # The y scale is the server's domain: temperature (about 36–37 °C) is not stretched down to 0,
        # so its line runs through both halves of the plot.
        for browser in (self.a, self.b):
            low, high = browser.inspect()["charts"]["temperature"]["yDomain"]
            self.assertGreater(low, 30, f"{browser.name}: temperature y domain {low}–{high}")
            line = browser.driver.execute_async_script(SERIES_PIXELS_JS, "temperature")
            self.assertNotIn("error", line, line.get("error"))
            self.assertGreater(line["top"], 20, f"{browser.name}: temperature line in the top half {line}")
            self.assertGreater(line["bottom"], 20, f"{browser.name}: temperature line in the bottom half {line}")

    def test_2b_page_modules_compute_geometry_backoff_and_data(self):
        result = self.a.driver.execute_async_script(MODULES_JS)
        self.assertNotIn("error", result, result.get("error"))
        ceilings = [250, 500, 1000, 2000, 4000, 5000, 5000]
        for attempt, ceiling in enumerate(ceilings):
            low, high = result["backoff"][attempt]
            self.assertEqual((low, high), (ceiling // 2, ceiling), f"attempt {attempt}")
        self.assertEqual(result["band"], {"start": 0.25, "centre": 0.375, "end": 0.5})
        self.assertEqual(result["rtlPixel"], 110)
        self.assertEqual(result["ticks"], [0, 500, 1000, 1500, 2000])
        self.assertEqual(result["dayTicks"], ["May 5", "May 12", "May 19", "May 26"])
        self.assertEqual(result["secondTicks"], ["05:16:05", "05:16:10", "05:16:15", "05:16:20"])
        self.assertEqual(result["blinkTicks"], ["05:16:00"], "a span within one second: one tick, mid-span")
        self.assertEqual(result["timeLabels"], ["Dec 1 05:16:09", "Dec 1 05:16", "Dec 1"])
        self.assertEqual(result["flatY"], [60, 60], "a single y value is drawn mid-plot")
        self.assertEqual(result["areaFloors"], [0, 30, -20, 0], "areas fill to 0 inside the domain, else its floor")
        self.assertEqual(result["seriesSeen"], [[], [], True, ["user", "system"]],
                         "series named by data join in the order they arrive")
        self.assertEqual(result["points"], [[2, 20], [3, 35], [4, 40], [5, 50], [6, 60]])
        self.assertEqual(result["categories"], {"Mon": 5, "Tue": 7})
        self.assertEqual(result["drawable"], [False, True, True, False, None],
                         "nothing to draw before a snapshot or without the server's y domain")
        self.assertEqual(result["yDomains"], [[36, 37], [35, 37], [35, 37]], "the server's y domain, kept until it changes")
        self.assertEqual(result["numbers"], ["1,900", "36.55", "12,345", "–"])
        self.assertEqual(result["url"], "ws://127.0.0.1:%d/ws" % self.server.port)
        self.assertEqual(result["secureUrl"], "wss://example.org/ws")

    def test_2c_zoom_arithmetic_and_a_zoomed_model(self):
        result = self.a.driver.execute_async_script(ZOOM_MODULES_JS)
        self.assertNotIn("error", result, result.get("error"))
        self.assertEqual(result["live"], {"view": None, "domain": [0, 100], "live": [0, 100]})
        self.assertEqual(result["zoomed"], {"view": {"from": 40, "to": 60}, "domain": [40, 60], "fraction": 0.25},
                         "a snapshot's view is the domain drawn")
        # An append while zoomed describes the live window: its points go in, the view's x domain
        # stays, the y domain only widens.
        self.assertEqual(result["appended"], {"domain": [40, 60], "live": [10, 110], "y": [0, 20],
                                              "points": [[50, 5], [55, 20]]})
        self.assertEqual(result["narrower"], [0, 20])
        self.assertEqual(result["back"], {"view": None, "domain": [10, 110], "live": [10, 110]},
                         "a snapshot without view is live again")
        self.assertIsNone(result["categoryView"], "category charts have no view")
        self.assertEqual(result["zoomIn"], [12.5, 62.5], "zoomed around 25, which stays at a quarter")
        self.assertEqual(result["zoomOut"], [-150, 250])
        self.assertEqual(result["zoomHuge"], [-1e15, 1e15], "no wider than ±1e15")
        self.assertAlmostEqual(result["minTime"], (DEC_1 + 1) * 4e-9, places=6)
        self.assertEqual(result["minLinear"], 1, "a millionth of the live window")
        low, high = result["tiny"]
        self.assertLess(low, DEC_1)
        self.assertGreater(high, DEC_1)
        self.assertGreaterEqual(high - low, 1e-9 * abs(high) * 2, "well above the server's floor")
        self.assertEqual(result["reversed"], [1, 5])
        self.assertEqual(result["beyond"], [7.9e14, 1e15], "shifted inside ±1e15")
        self.assertEqual(result["wide"], [-1e15, 1e15])
        self.assertEqual(result["nonFinite"], [None, None], "never sent")

    # -- shared hover --------------------------------------------------------------------

    def test_3_hover_in_a_shows_march_in_b_at_its_own_size(self):
        self.a.hover("sales", fraction_x=2.5 / 12, fraction_y=0.5)
        wanted = ["March", "Ice Cream 900", "Coffee 1,900", "Muffins 800"]
        for browser in (self.b, self.a):
            wait_until(lambda: all(w in browser.selection_text("sales") for w in wanted),
                       f"{browser.name} shows the March hover", lambda: browser.selection_text("sales"))
        wait_until(lambda: "Ice Cream 900" in self.b.live_text(), "B's live region announces the hover",
                   self.b.live_text)
        me_a = self.a.inspect()["me"]
        self.assertIn(me_a["name"], self.b.selection_text("sales"), "B names the viewer who hovers")
        hovers = self.b.inspect()["charts"]["sales"]["selection"]["hovers"]
        self.assertEqual([h["x"] for h in hovers], ["March"])
        self.assertEqual(hovers[0]["placement"], "trailing")

        self.assertNotEqual(self.a.inspect()["charts"]["sales"]["plot"]["width"],
                            self.b.inspect()["charts"]["sales"]["plot"]["width"],
                            "A and B should have different plot widths")
        for browser in (self.b, self.a):
            march = browser.band_pixels("sales", 2, 12)
            november = browser.band_pixels("sales", 10, 12)
            self.assertGreater(march["painted"], march["total"] * 0.8,
                               f"{browser.name}: March band not shaded {march}")
            self.assertEqual(november["painted"], 0, f"{browser.name}: November band painted {november}")
        self.a.leave("sales")
        wait_until(lambda: self.b.selection_text("sales") == "", "B clears the hover after A leaves",
                   lambda: self.b.selection_text("sales"))
        self.assertEqual(self.b.band_pixels("sales", 2, 12)["painted"], 0, "B's overlay cleared")

    # -- input plumbing ------------------------------------------------------------------

    def test_4_moves_are_coalesced_per_frame_and_resizes_send_viewports(self):
        self.a.spy_on_sent_messages()
        self.a.point("sales", 0.5, 0.5)  # scroll into view
        last_x = self.a.driver.execute_script(DISPATCH_MOVES_JS, "sales", 40)
        wait_until(lambda: self.a.sent("pointer"), "A sends the coalesced move")
        time.sleep(0.3)
        moves = [m for m in self.a.sent("pointer") if m["phase"] == "move"]
        self.assertEqual(len(moves), 1, f"40 moves in one frame must go out as one, got {len(moves)}")
        self.assertAlmostEqual(moves[0]["x"], last_x, delta=0.01, msg="the newest position wins")
        self.assertEqual(moves[0]["chart"], "sales")
        self.assertTrue(moves[0]["ref"].startswith("p-"))
        self.a.driver.execute_script(
            "document.querySelector('[data-chart=\"sales\"] canvas.overlay')"
            ".dispatchEvent(new PointerEvent('pointerleave', {pointerId: 1, pointerType: 'mouse'}))")
        wait_until(lambda: any(m["phase"] == "leave" for m in self.a.sent("pointer")), "A sends leave")

        before = self.a.inspect()["charts"]["sales"]["plot"]
        self.a.driver.set_window_size(1100, 1000)
        try:
            wait_until(lambda: any(m["chart"] == "sales" and m["plot"]["width"] != before["width"]
                                   for m in self.a.sent("viewport")),
                       "A sends a new sales viewport after a resize", lambda: self.a.sent("viewport"))
            latest = [m for m in self.a.sent("viewport") if m["chart"] == "sales"][-1]
            plot = self.a.inspect()["charts"]["sales"]["plot"]
            self.assertEqual(latest["plot"], plot)
            self.assertFalse(latest["rtl"])
            self.assertEqual({m["chart"] for m in self.a.sent("viewport")},
                             {"workouts", "intake", "expenses", "sales", "temperature"})
        finally:
            self.a.driver.set_window_size(1400, 1000)
            wait_until(lambda: self.a.inspect()["charts"]["sales"]["plot"] == before,
                       "A's plot frame returns to its size")

    # -- shared range --------------------------------------------------------------------

    def test_5_drag_range_in_a_shows_totals_in_b(self):
        self.a.press("intake", fraction_x=0.15, fraction_y=0.6)
        self.a.move_pressed("intake", [0.25, 0.35, 0.5, 0.6])
        wait_until(lambda: "Total Calories:" in self.b.range_summary("intake"),
                   "B shows the range totals", lambda: self.b.range_summary("intake"))
        summary = self.b.range_summary("intake")
        self.assertRegex(summary, r"Selection: [A-Z][a-z]{2} \d{1,2} – [A-Z][a-z]{2} \d{1,2}")
        self.assertRegex(summary, r"Total Calories: \d{1,3}(,\d{3})+")
        self.assertIn("mean", summary)
        rows = self.b.range_rows("intake")
        self.assertGreater(len(rows), 1, "B lists the selected rows")
        rng = self.b.inspect()["charts"]["intake"]["selection"]["range"]
        self.assertEqual(len(rows), len(rng["rows"]))
        self.assertLess(rng["fromFraction"], rng["toFraction"])
        band = self.b.fraction_pixels("intake", rng["fromFraction"], rng["toFraction"])
        self.assertGreater(band["painted"], band["total"] * 0.8, f"B's range rectangle {band}")
        self.a.release_pointer()
        wait_until(lambda: self.b.range_summary("intake") == "", "range cleared on release in B",
                   lambda: self.b.range_summary("intake"))

    def test_5b_scrub_in_a_highlights_the_bar_in_b(self):
        self.a.press("expenses", fraction_x=0.2, fraction_y=0.5)
        self.a.move_pressed("expenses", [0.4, 0.7, 0.97], fraction_y=0.3)
        wait_until(lambda: "scrubbing: DEC" in self.b.selection_text("expenses"),
                   "B shows A's scrub on DEC", lambda: self.b.selection_text("expenses"))
        scrub = self.b.inspect()["charts"]["expenses"]["selection"]["scrub"]
        self.assertAlmostEqual(scrub["fraction"], 11.5 / 12, places=3)
        self.assertAlmostEqual(scrub["yFraction"], 0.3, delta=0.02)
        dimmed = self.b.band_pixels("expenses", 0, 12)
        self.assertGreater(dimmed["painted"], dimmed["total"] * 0.95, f"B dims JAN {dimmed}")
        self.a.release_pointer()
        wait_until(lambda: self.b.selection_text("expenses") == "", "scrub cleared on release in B",
                   lambda: self.b.selection_text("expenses"))
        self.assertEqual(self.b.band_pixels("expenses", 0, 12)["painted"], 0)

    # -- shared pin ----------------------------------------------------------------------

    def test_6_tap_pin_in_b_shows_in_a(self):
        self.b.tap("temperature", fraction_x=0.7, fraction_y=0.5)
        wait_until(lambda: "pinned" in self.a.selection_text("temperature"),
                   "A shows B's pin", lambda: self.a.selection_text("temperature"))
        pin_a = self.a.inspect()["charts"]["temperature"]["selection"]["pin"]
        pin_b = self.b.inspect()["charts"]["temperature"]["selection"]["pin"]
        self.assertEqual(pin_a["x"], pin_b["x"])
        self.assertEqual(pin_a["by"], self.b.inspect()["me"]["id"])
        self.assertIn("Temperature", self.a.selection_text("temperature"))
        rule = self.a.fraction_pixels("temperature", pin_a["fraction"] - 0.004, pin_a["fraction"] + 0.004)
        self.assertGreater(rule["painted"], 0, "A draws the pin's rule")

        # A screenshot with several selections at once: A hovers May and B hovers October on
        # sales, B's pin stays on temperature.
        self.a.hover("sales", fraction_x=4.5 / 12, fraction_y=0.4)
        self.b.hover("sales", fraction_x=9.5 / 12, fraction_y=0.4)
        wait_until(lambda: len(self.a.inspect()["charts"]["sales"]["selection"]["hovers"]) == 2,
                   "both hovers reach A", lambda: self.a.selection_text("sales"))
        text = self.a.selection_text("sales")
        self.assertIn("May", text)
        self.assertIn("October", text)
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        self.a.save_screenshot(SCREENSHOT)
        self.assertGreater(SCREENSHOT.stat().st_size, 10_000)
        if not os.environ.get("CHARTCAST_SCREENSHOT"):
            SCREENSHOT.unlink(missing_ok=True)
        self.b.leave("sales")
        self.a.leave("sales")
        for browser in (self.a, self.b):
            self.assertEqual(browser.console_errors(), [], f"{browser.name}: console errors")

    # -- keyboard ------------------------------------------------------------------------

    def test_7_keyboard_moves_hover_range_and_pin(self):
        self.b.focus_chart("sales")
        self.b.keys("END")
        wait_until(lambda: "December" in self.a.selection_text("sales"), "End hovers December (seen in A)",
                   lambda: self.a.selection_text("sales"))
        self.b.keys("ARROW_LEFT")
        wait_until(lambda: "November" in self.a.selection_text("sales"), "ArrowLeft moves to November",
                   lambda: self.a.selection_text("sales"))
        self.b.keys("ESCAPE")
        wait_until(lambda: self.a.selection_text("sales") == "", "Escape clears the hover",
                   lambda: self.a.selection_text("sales"))

        # From the newest bar: once intake's rolling window is full, each tick evicts the oldest
        # bar, which would shrink a range anchored there (Home) under the test's feet.
        self.b.focus_chart("intake")
        self.b.keys("END")
        for _ in range(3):
            self.b.keys("ARROW_LEFT", shift=True)
        wait_until(lambda: "Total Calories:" in self.a.range_summary("intake"),
                   "Shift+ArrowLeft extends a range (seen in A)", lambda: self.a.range_summary("intake"))
        rng = self.a.inspect()["charts"]["intake"]["selection"]["range"]
        self.assertEqual(rng["count"], 4, f"End + 3 × Shift+ArrowLeft covers four bars: {rng}")
        self.b.keys("ESCAPE")
        wait_until(lambda: self.a.range_summary("intake") == "", "Escape clears the keyboard range",
                   lambda: self.a.range_summary("intake"))

        self.b.focus_chart("temperature")
        self.b.keys("END")
        self.b.keys("SPACE")
        wait_until(lambda: "pinned" in self.a.selection_text("temperature")
                   and self.a.inspect()["charts"]["temperature"]["selection"]["pin"]["fraction"] > 0.9,
                   "End + Space pins the last day (seen in A)", lambda: self.a.selection_text("temperature"))
        self.b.keys("ESCAPE")
        wait_until(lambda: self.a.selection_text("temperature") == "", "Escape clears the pin",
                   lambda: self.a.selection_text("temperature"))
        self.assertEqual(self.b.server_errors(), [], "the server rejected a message")
        self.assertEqual(self.b.console_errors(), [])

    # -- right to left -------------------------------------------------------------------

    def test_8_rtl_left_edge_selects_december(self):
        try:
            self.b.open(self.server.url("/?dir=rtl"))
            self.b.wait_ready()
            state = self.b.inspect()
            self.assertTrue(state["rtl"])
            self.b.hover("sales", fraction_x=0.03, fraction_y=0.5)
            wait_until(lambda: "December" in self.b.selection_text("sales"),
                       "RTL: pointer near the left edge selects December",
                       lambda: self.b.selection_text("sales"))
            wait_until(lambda: "December" in self.a.selection_text("sales"),
                       "A sees B's December hover", lambda: self.a.selection_text("sales"))
            # B mirrors the drawing: the shaded band is at the left edge, January's (right) is clear.
            left = self.b.visual_band_pixels("sales", 0, 12)
            right = self.b.visual_band_pixels("sales", 11, 12)
            self.assertGreater(left["painted"], left["total"] * 0.8, f"B: December band {left}")
            self.assertEqual(right["painted"], 0, f"B: January band {right}")
            # A (left to right) draws the same hover at its right edge.
            a_dec = self.a.band_pixels("sales", 11, 12)
            self.assertGreater(a_dec["painted"], a_dec["total"] * 0.8, f"A: December band {a_dec}")
            self.b.leave("sales")
            # Keys are sent in data order: under RTL, ArrowLeft moves to the next month.
            self.b.focus_chart("sales")
            self.b.keys("HOME")
            self.b.keys("ARROW_LEFT")
            wait_until(lambda: "February" in self.a.selection_text("sales"),
                       "RTL: Home then ArrowLeft hovers February", lambda: self.a.selection_text("sales"))
            self.b.keys("ESCAPE")
        finally:
            self.b.open(self.server.url("/"))
            self.b.wait_ready()

    # -- charts defined while watching ----------------------------------------------------

    def define_chart(self, chart, spec, points=None):
        """PUTs `spec` as `chart` (expecting 201 created) and POSTs `points` (rows) to it; the
        chart is deleted again when the test ends, whatever happened."""
        self.addCleanup(self.server.api, "DELETE", f"/api/charts/{chart}")
        status, body = self.server.api("PUT", f"/api/charts/{chart}", spec)
        self.assertEqual(status, 201, f"PUT {chart}: {body}")
        if points:
            self.write_points(chart, points)
        return body

    def write_points(self, chart, points):
        status, body = self.server.api("POST", f"/api/charts/{chart}/points", {"points": points})
        self.assertEqual((status, body["accepted"]), (200, len(points)), f"POST {chart}/points: {body}")

    def assert_no_console_errors(self, *browsers):
        for browser in browsers or (self.a, self.b):
            self.assertEqual(browser.console_errors(), [], f"{browser.name}: console errors")
            self.assertEqual(browser.server_errors(), [], f"{browser.name}: the server refused a message")

    def test_8b_chart_put_over_http_appears_drawn_and_shared_in_both(self):
        for browser in (self.a, self.b):
            browser.spy_on_sent_messages()
        self.define_chart("probe", {"title": "Probe load", "mark": "line", "x": {"kind": "time", "label": "Time"},
                                    "y": {"label": "%", "domain": [0, 100]}, "series": ["load"]})
        for browser in (self.a, self.b):
            # Added at the end of the grid, empty: axes drawn on the spec's fixed y domain, no marks.
            info = browser.wait_chart("probe", points=0)
            self.assertEqual(browser.panel_order(), DEMO_CHARTS + ["probe"], f"{browser.name}: grid order")
            self.assertEqual((info["mark"], info["yDomain"], info["series"]), ("line", [0, 100], ["load"]))
            self.assertEqual(browser.text_of('[data-chart="probe"] h2'), "Probe load")
            axes = browser.pixels("probe", "base")
            self.assertGreater(axes["painted"], axes["total"] * 0.005, f"{browser.name}: empty chart has axes {axes}")
            self.assertEqual(axes["width"], round(info["size"]["width"] * browser.scale),
                             f"{browser.name}: canvas sized to box × devicePixelRatio")
            empty = browser.series_pixels("probe", 0, 0, 0, 1, 1)
            self.assertEqual(empty["opaque"] + empty["translucent"], 0, f"{browser.name}: no marks yet {empty}")
            self.assertIn("no data yet", browser.text_of('[data-chart="probe"] .chart-summary'))
            # The new panel sent its own viewport, its plot frame at this browser's size.
            wait_until(lambda: any(m["chart"] == "probe" for m in browser.sent("viewport")),
                       f"{browser.name} sends a viewport for the new chart", lambda: browser.sent("viewport"))
            viewport = [m for m in browser.sent("viewport") if m["chart"] == "probe"][-1]
            self.assertEqual(viewport["plot"], info["plot"])
            self.assertFalse(viewport["rtl"])
        self.assertNotEqual(self.a.inspect()["charts"]["probe"]["plot"]["width"],
                            self.b.inspect()["charts"]["probe"]["plot"]["width"])

        # One point: the x domain is that point ± half a day, so its dot sits in the middle of the
        # plot, at half height on the fixed 0…100 axis.
        self.write_points("probe", [{"series": "load", "x": DEC_1, "y": 50}])
        for browser in (self.a, self.b):
            info = browser.wait_chart("probe", points=1)
            self.assertEqual(info["yDomain"], [0, 100], "the spec's y domain stays fixed")
            dot = browser.series_pixels("probe", 0, 0.47, 0.45, 0.53, 0.55)
            self.assertGreater(dot["opaque"], 10, f"{browser.name}: the single point's dot mid-plot {dot}")
            corner = browser.series_pixels("probe", 0, 0, 0, 0.4, 0.4)
            self.assertEqual(corner["opaque"], 0, f"{browser.name}: nothing in the top-left {corner}")

        values = [50, 20, 80, 35, 65, 10, 90]
        self.write_points("probe", [{"series": "load", "x": DEC_1 + i * HOUR, "y": v}
                                    for i, v in enumerate(values) if i > 0])
        for browser in (self.a, self.b):
            browser.wait_chart("probe", points=len(values))
            line = browser.series_pixels("probe", 0, 0, 0, 1, 1)
            self.assertGreater(line["opaque"], 300 * browser.scale, f"{browser.name}: the line is drawn {line}")
            high = browser.series_pixels("probe", 0, 0, 0, 1, 0.2)
            low = browser.series_pixels("probe", 0, 0, 0.8, 1, 1)
            self.assertGreater(high["opaque"], 0, f"{browser.name}: 90 reaches the top fifth {high}")
            self.assertGreater(low["opaque"], 0, f"{browser.name}: 10 reaches the bottom fifth {low}")

        # A hover in A on the new chart is drawn in B: 03:00, the fourth point (35).
        domain = self.a.inspect()["charts"]["probe"]["domain"]
        self.a.hover("probe", (DEC_1 + 3 * HOUR - domain[0]) / (domain[1] - domain[0]), 0.5)
        name_a = self.a.inspect()["me"]["name"]
        wait_until(lambda: f"{name_a}: Dec 1 03:00 — load 35" in self.b.selection_text("probe"),
                   "B shows A's hover on the new chart", lambda: self.b.selection_text("probe"))
        hover = self.b.inspect()["charts"]["probe"]["selection"]["hovers"][0]
        self.assertEqual(hover["x"], DEC_1 + 3 * HOUR)
        rule = self.b.fraction_pixels("probe", hover["fraction"] - 0.004, hover["fraction"] + 0.004)
        self.assertGreater(rule["painted"], 0, f"B draws the hover's rule {rule}")
        far = self.b.fraction_pixels("probe", 0.02, 0.2)
        self.assertEqual(far["painted"], 0, f"B's overlay is clear away from the hover {far}")
        self.a.leave("probe")
        wait_until(lambda: self.b.selection_text("probe") == "", "B clears the hover",
                   lambda: self.b.selection_text("probe"))
        self.assert_no_console_errors()

    def test_8c_line_protocol_write_creates_a_chart_with_series_named_by_data(self):
        self.addCleanup(self.server.api, "DELETE", "/api/charts/cpu")
        status, body = self.server.api("POST", "/api/v2/write", b"cpu user=42", content_type="text/plain")
        self.assertEqual(status, 204, body)
        colour_of_user = {}
        for browser in (self.a, self.b):
            info = browser.wait_chart("cpu", points=1)
            self.assertEqual(browser.panel_order()[-1], "cpu", f"{browser.name}: added at the end")
            self.assertEqual((info["mark"], info["kind"], info["series"]), ("line", "time", ["user"]))
            dot = browser.series_pixels("cpu", 0, 0.4, 0.3, 0.6, 0.7)
            self.assertGreater(dot["opaque"], 10, f"{browser.name}: the point's dot {dot}")
            legend = browser.series_pixels("cpu", 0, 0, -1, 1, 0)
            self.assertGreater(legend["opaque"], 20, f"{browser.name}: a legend swatch for user {legend}")
            colour_of_user[browser.name] = legend["colour"]
        # A field the chart has not seen yet adds a series: a legend entry in the next colour.
        status, body = self.server.api("POST", "/api/v2/write", b"cpu system=7", content_type="text/plain")
        self.assertEqual(status, 204, body)
        for browser in (self.a, self.b):
            info = browser.wait_chart("cpu", points=2)
            self.assertEqual(info["series"], ["user", "system"], f"{browser.name}: series as they appeared")
            legend = browser.series_pixels("cpu", 1, 0, -1, 1, 0)
            self.assertGreater(legend["opaque"], 20, f"{browser.name}: a legend swatch for system {legend}")
            dots = browser.series_pixels("cpu", 1, 0, 0, 1, 1)
            self.assertGreater(dots["opaque"], 10, f"{browser.name}: system's point in its own colour {dots}")
            self.assertNotEqual(dots["colour"], colour_of_user[browser.name], "a colour of its own")
        self.assert_no_console_errors()

    def test_8d_chart_deleted_over_http_leaves_both_and_the_rest_keep_working(self):
        self.define_chart("doomed", {"title": "Doomed", "mark": "bar",
                                     "x": {"kind": "category", "categories": ["Mon", "Tue", "Wed"]},
                                     "series": ["visits"]},
                          [{"series": "visits", "x": day, "y": v} for day, v in (("Mon", 3), ("Tue", 9), ("Wed", 5))])
        for browser in (self.a, self.b):
            browser.wait_chart("doomed", points=3)
        self.a.hover("doomed", 1.5 / 3, 0.5)
        wait_until(lambda: "Tue — visits 9" in self.b.selection_text("doomed"), "B shows A's hover on doomed",
                   lambda: self.b.selection_text("doomed"))
        # Keep A's removed canvas to check that it no longer sends anything.
        self.a.spy_on_sent_messages()
        self.a.driver.execute_script(
            "window.__removedOverlay = document.querySelector('[data-chart=doomed] canvas.overlay')")
        status, _ = self.server.api("DELETE", "/api/charts/doomed")
        self.assertEqual(status, 204)
        for browser in (self.a, self.b):
            browser.wait_chart_gone("doomed")
            self.assertEqual(browser.panel_order(), DEMO_CHARTS)
            self.assertEqual(list(browser.inspect()["order"]), DEMO_CHARTS)
        self.a.driver.execute_script(
            "const c = window.__removedOverlay;"
            "c.dispatchEvent(new PointerEvent('pointermove', {bubbles: true, pointerId: 1, pointerType: 'mouse',"
            " clientX: 40, clientY: 40}));"
            "c.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true}));")
        time.sleep(0.3)
        self.assertEqual([m for m in self.a.sent("pointer") + self.a.sent("key") if m["chart"] == "doomed"], [],
                         "the removed panel's listeners are gone")
        # The other charts still share their selections.
        self.a.hover("sales", fraction_x=2.5 / 12, fraction_y=0.5)
        wait_until(lambda: "Coffee 1,900" in self.b.selection_text("sales"), "hover on sales still travels",
                   lambda: self.b.selection_text("sales"))
        self.a.leave("sales")
        wait_until(lambda: self.b.selection_text("sales") == "", "B clears the sales hover",
                   lambda: self.b.selection_text("sales"))
        self.assert_no_console_errors()

    def test_8e_replacing_a_chart_with_another_mark_redraws_it_in_place(self):
        regions = ["North", "South", "East", "West"]
        self.define_chart("swap", {"title": "Units", "mark": "bar", "x": {"kind": "category", "categories": regions},
                                   "series": ["units"]},
                          [{"series": "units", "x": r, "y": v} for r, v in zip(regions, (40, 80, 60, 20))])
        for browser in (self.a, self.b):
            browser.wait_chart("swap", points=4)
            browser.driver.execute_script("document.querySelector('[data-chart=swap]').__before = true")
            # South's bar (band 1) reaches down to the axis.
            foot = browser.series_pixels("swap", 0, 1.3 / 4, 0.9, 1.7 / 4, 0.99)
            self.assertGreater(foot["opaque"], foot["total"] * 0.9, f"{browser.name}: South's bar {foot}")
        order = self.a.panel_order()
        status, body = self.server.api("PUT", "/api/charts/swap", {
            "title": "Units (line)", "mark": "line", "x": {"kind": "category", "categories": regions},
            "series": ["units"]})
        self.assertEqual(status, 200, body)
        for browser in (self.a, self.b):
            wait_until(lambda: browser.inspect()["charts"]["swap"]["mark"] == "line", f"{browser.name} gets the new spec",
                       lambda: browser.inspect()["charts"]["swap"])
            info = browser.wait_chart("swap", points=4)  # the data is kept: same kind and categories
            self.assertTrue(browser.driver.execute_script(
                "return document.querySelector('[data-chart=swap]').__before === true"),
                f"{browser.name}: the same panel, redrawn in place")
            self.assertEqual(browser.panel_order(), order, f"{browser.name}: the grid keeps its order")
            self.assertEqual(browser.text_of('[data-chart="swap"] h2'), "Units (line)")
            self.assertGreater(info["yDomain"][0], 0, "a line's y domain need not reach 0")
            foot = browser.series_pixels("swap", 0, 1.3 / 4, 0.9, 1.7 / 4, 0.99)
            self.assertEqual(foot["opaque"], 0, f"{browser.name}: no bar left under South {foot}")
            line = browser.series_pixels("swap", 0, 0, 0, 1, 1)
            self.assertGreater(line["opaque"], 200 * browser.scale, f"{browser.name}: the line {line}")
        # Still interactive: a hover on the replaced chart travels.
        self.b.hover("swap", 2.5 / 4, 0.5)
        wait_until(lambda: "East — units 60" in self.a.selection_text("swap"), "A shows B's hover on the new line",
                   lambda: self.a.selection_text("swap"))
        self.b.leave("swap")
        self.assert_no_console_errors()

    def test_8f_area_chart_fills_below_its_lines(self):
        self.define_chart("fill", {"title": "Fill", "mark": "area", "x": {"kind": "time"},
                                   "y": {"domain": [0, 100]}, "series": ["a", "b"]},
                          [{"series": s, "x": DEC_1 + i * HOUR, "y": v}
                           for i in range(8) for s, v in (("a", 60), ("b", 30))])
        for browser in (self.a, self.b):
            info = browser.wait_chart("fill", points=16)
            self.assertEqual(info["yDomain"], [0, 100])
            # Between the lines (55…35) only a's fill: translucent, in a's colour.
            only_a = browser.series_pixels("fill", 0, 0.15, 0.47, 0.85, 0.63)
            self.assertGreater(only_a["translucent"], only_a["total"] * 0.7, f"{browser.name}: a's fill {only_a}")
            # Above a's line (95…72) nothing of a.
            above = browser.series_pixels("fill", 0, 0.15, 0.05, 0.85, 0.28)
            self.assertEqual(above["opaque"] + above["translucent"], 0, f"{browser.name}: above a's line {above}")
            # a's line itself is opaque, at 60.
            line = browser.series_pixels("fill", 0, 0.15, 0.38, 0.85, 0.42)
            self.assertGreater(line["opaque"], 0, f"{browser.name}: a's line {line}")
            # Below both (25…5) the fills overlap: more opaque than one, still see-through, down to 0.
            both = browser.series_pixels("fill", 1, 0.15, 0.77, 0.85, 0.93)
            self.assertGreater(both["meanAlpha"], only_a["meanAlpha"] + 20, f"{browser.name}: {both} over {only_a}")
            self.assertLess(both["meanAlpha"], 230, f"{browser.name}: the fills are semi-transparent {both}")
            floor = browser.series_pixels("fill", 1, 0.15, 0.96, 0.85, 0.995)
            self.assertGreater(floor["meanAlpha"], 60, f"{browser.name}: filled down to 0 {floor}")
        # Hover markers as for lines: a rule and a dot per series, shared.
        domain = self.a.inspect()["charts"]["fill"]["domain"]
        self.a.hover("fill", (DEC_1 + 4 * HOUR - domain[0]) / (domain[1] - domain[0]), 0.5)
        wait_until(lambda: "a 60, b 30" in self.b.selection_text("fill"), "B shows A's hover on the area chart",
                   lambda: self.b.selection_text("fill"))
        hover = self.b.inspect()["charts"]["fill"]["selection"]["hovers"][0]
        for series, top in ((0, 0.35), (1, 0.65)):
            dot = self.b.series_pixels("fill", series, hover["fraction"] - 0.02, top, hover["fraction"] + 0.02,
                                       top + 0.1, layer="overlay")
            self.assertGreater(dot["opaque"], 10, f"B: the hover's dot on series {series} {dot}")
        self.a.leave("fill")
        self.assert_no_console_errors()

    def test_8g_overlay_draws_at_most_the_announced_hovers(self):
        # C is told maxHovers is 1: of A's and B's hovers on sales, it draws only the newest.
        with self.third_browser(wire_tap_js({"maxHovers": 1})) as c:
            self.assertEqual(c.inspect()["limits"]["maxHovers"], 1)
            self.a.hover("sales", fraction_x=2.5 / 12, fraction_y=0.4)
            wait_until(lambda: len(c.inspect()["charts"]["sales"]["selection"]["hovers"]) == 1,
                       "C sees A's hover", lambda: c.selection_text("sales"))
            self.b.hover("sales", fraction_x=9.5 / 12, fraction_y=0.4)
            wait_until(lambda: len(c.inspect()["charts"]["sales"]["selection"]["hovers"]) == 2,
                       "C receives both hovers", lambda: c.selection_text("sales"))
            newest, older = c.inspect()["charts"]["sales"]["selection"]["hovers"]
            index = {"March": 2, "October": 9}
            drawn = c.band_pixels("sales", index[newest["x"]], 12)
            skipped = c.band_pixels("sales", index[older["x"]], 12)
            self.assertGreater(drawn["painted"], drawn["total"] * 0.8, f"C draws the newest hover {drawn}")
            self.assertEqual(skipped["painted"], 0, f"C leaves out the hover beyond its limit {skipped}")
            for browser in (self.a, self.b):  # told 8, they draw both
                for month in index.values():
                    band = browser.band_pixels("sales", month, 12)
                    self.assertGreater(band["painted"], band["total"] * 0.8, f"{browser.name}: band {month} {band}")
            self.a.leave("sales")
            self.b.leave("sales")
            self.assertEqual(c.console_errors(), [])

    def test_8h_welcome_after_a_reconnect_decides_the_panels_and_their_order(self):
        point = lambda v: [{"series": "v", "x": DEC_1 + i * HOUR, "y": v + i} for i in range(3)]  # noqa: E731
        line = {"mark": "line", "x": {"kind": "time"}, "series": ["v"]}
        # Charts are listed in the order they were first defined, whatever slot the server keeps
        # them in: fresh (below) reuses gone's slot but comes after tail for everyone.
        for browser in (self.a, self.b):
            wait_until(lambda: browser.panel_order() == DEMO_CHARTS, f"{browser.name} shows the demo charts only",
                       browser.panel_order)
        self.define_chart("gone", {**line, "title": "Gone"}, point(10))
        self.define_chart("tail", {**line, "title": "Tail"}, point(20))
        with self.third_browser(SOCKET_CONTROL_JS, SPY_JS, path="/?dir=rtl") as c:
            self.assertEqual(c.panel_order(), self.server.chart_ids())
            c.driver.execute_script(
                "for (const s of document.querySelectorAll('#grid > section')) s.__before = s.dataset.chart")
            # C loses its connection and cannot get back while the dashboard changes.
            c.driver.execute_script("window.__blockSockets = true; window.__dropConnection()")
            wait_until(lambda: c.inspect()["status"] in ("reconnecting", "offline"), "C notices it is cut off",
                       c.status_text)
            self.assertEqual(self.server.api("DELETE", "/api/charts/gone")[0], 204)
            for browser in (self.a, self.b):
                browser.wait_chart_gone("gone")
            self.define_chart("fresh", {**line, "title": "Fresh"}, point(30))
            for browser in (self.a, self.b):
                browser.wait_chart("fresh", points=3)
                self.assertEqual(browser.panel_order()[-2:], ["tail", "fresh"], f"{browser.name}: added at the end")
            self.assertIn("gone", c.panel_order(), "C has heard nothing while cut off")
            c.driver.execute_script("window.__sentMessages.length = 0; window.__blockSockets = false")
            wait_until(lambda: "fresh" in c.inspect()["charts"], "C reconnects and is welcomed with fresh",
                       lambda: (c.panel_order(), c.inspect()["status"], c.status_text(), c.console_errors()[-5:]), timeout=15)
            c.wait_ready(timeout=15)
            server_order = self.server.chart_ids()
            self.assertEqual(c.panel_order(), server_order, "C's grid follows the welcome")
            self.assertEqual(c.inspect()["order"], server_order)
            # The welcome's order is the one A and B built as it happened: fresh at the end.
            self.assertEqual(server_order[-2:], ["tail", "fresh"], server_order)
            for browser in (self.a, self.b):
                self.assertEqual(browser.panel_order(), server_order, f"{browser.name} and C agree on the order")
            kept = c.driver.execute_script(
                "return [...document.querySelectorAll('#grid > section')].filter(s => s.__before === s.dataset.chart)"
                ".map(s => s.dataset.chart)")
            self.assertEqual(kept, [chart for chart in server_order if chart != "fresh"], "kept panels are not rebuilt")
            info = c.wait_chart("fresh", points=3)
            drawn = c.series_pixels("fresh", 0, 0, 0, 1, 1)
            self.assertGreater(drawn["opaque"], 50, f"C draws fresh {drawn}")
            viewports = [m for m in c.sent("viewport") if m["chart"] == "fresh"]
            self.assertTrue(viewports and viewports[-1]["rtl"] and viewports[-1]["plot"] == info["plot"], viewports)
            # Late messages about the removed chart change nothing and raise nothing.
            for late in ({"type": "append", "chart": "gone", "seq": 99, "points": [{"series": "v", "x": DEC_1, "y": 1}]},
                         {"type": "selection", "chart": "gone", "seq": 100, "hovers": [], "scrub": None,
                          "range": None, "pin": None},
                         {"type": "chart_removed", "chart": "gone"}):
                c.driver.execute_script("window.__deliver(arguments[0])", late)
            self.assertNotIn("gone", c.panel_order())
            # A welcome in another order (a server restarted with its charts reordered) moves
            # the panels, keeping them.
            status, listed = self.server.api("GET", "/api/charts")
            self.assertEqual(status, 200)
            welcome = {"type": "welcome", "protocol": 1, "viewer": "v-fake", "name": "C", "color": "#000",
                       "charts": list(reversed(listed["charts"]))}
            c.driver.execute_script("for (const s of document.querySelectorAll('#grid > section')) s.__mark = 1")
            c.driver.execute_script("window.__deliver(arguments[0])", welcome)
            wait_until(lambda: c.panel_order() == list(reversed(server_order)), "C follows a reordered welcome", c.panel_order)
            moved = c.driver.execute_script(
                "return [...document.querySelectorAll('#grid > section')].every(s => s.__mark === 1)")
            self.assertTrue(moved, "reordered panels are the same elements")
            c.driver.execute_script("window.__deliver(arguments[0])", {**welcome, "charts": listed["charts"]})
            wait_until(lambda: c.panel_order() == server_order, "and back", c.panel_order)
            # The new panel takes input: a hover in C (right to left) reaches A.
            c.hover("fresh", 0.5, 0.5)
            wait_until(lambda: "Dec 1 01:00 — v 31" in self.a.selection_text("fresh"), "A sees C's hover on fresh",
                       lambda: self.a.selection_text("fresh"))
            c.leave("fresh")
            errors = [e for e in c.console_errors() if "/no-socket-here" not in e]
            self.assertEqual(errors, [], "C: console errors (besides its blocked reconnects)")
        self.assert_no_console_errors()

    # -- per-viewer zoom ------------------------------------------------------------------

    def sent_views(self, browser, chart):
        """The `view` messages `browser` sent for `chart` since its spy was (re)set."""
        return [m for m in browser.sent("view") if m["chart"] == chart]

    def wait_view_settled(self, browser, chart, timeout=10):
        """Waits until `browser` draws the view it asked for last on `chart` (the snapshot answering
        it arrived and the badge shows); returns its `inspect()` entry."""
        def settled():
            views = self.sent_views(browser, chart)
            info = browser.inspect()["charts"][chart]
            if not views or "from" not in views[-1] or not info["view"] or not info["zoomed"]:
                return False
            wanted = views[-1]
            return all(abs(info["view"][end] - wanted[end]) <= 1e-9 * abs(wanted[end]) for end in ("from", "to"))
        wait_until(settled, f"{browser.name} draws the view it asked for on {chart}",
                   lambda: (self.sent_views(browser, chart)[-1:], browser.inspect()["charts"][chart]["view"]),
                   timeout=timeout)
        time.sleep(0.15)  # the repaint's animation frame
        return browser.inspect()["charts"][chart]

    def back_to_live(self, browser, chart):
        """Cleanup: returns `browser`'s plot of `chart` to live (the badge) if it is still zoomed."""
        info = (browser.inspect() or {"charts": {}})["charts"].get(chart)
        if info and info["view"]:
            browser.click_zoom_badge(chart)
            wait_until(lambda: browser.inspect()["charts"][chart]["view"] is None,
                       f"{browser.name} is live again on {chart}")

    def test_8i_zoom_in_a_while_b_stays_live(self):
        chart = "temperature"  # a time chart the demo appends a day to every tick
        self.a.spy_on_sent_messages()
        self.addCleanup(self.back_to_live, self.a, chart)
        live = self.a.inspect()["charts"][chart]
        self.assertIsNone(live["view"])
        self.assertFalse(self.a.zoom_badge(chart)["shown"], "no badge while live")
        live_span = live["domain"][1] - live["domain"][0]
        # Three notches of the real mouse wheel over the middle of the plot zoom in around it.
        for _ in range(3):
            self.a.wheel(chart, 0.5, 0.5, -120)
        info = self.wait_view_settled(self.a, chart)
        views = self.sent_views(self.a, chart)
        self.assertTrue(all(set(m) == {"type", "chart", "from", "to", "ref"} and m["from"] < m["to"] for m in views),
                        views)
        view = info["view"]
        self.assertEqual(info["domain"], [view["from"], view["to"]], "A draws its view's domain")
        self.assertLess(view["to"] - view["from"], live_span * 0.8, "zoomed in")
        self.assertGreater(view["from"], info["liveDomain"][0], f"inside the live window: {view} {info['liveDomain']}")
        self.assertLess(view["to"], info["liveDomain"][1], f"ending before the live edge: {view} {info['liveDomain']}")
        badge = self.a.zoom_badge(chart)
        self.assertTrue(badge["shown"] and badge["inHeader"], badge)
        self.assertEqual((badge["tag"], badge["text"]), ("BUTTON", "Zoomed — double-click to return to live"))
        self.assertIn("Not live", badge["title"])
        self.assertIn("Zoomed, not live", self.a.text_of(f'[data-chart="{chart}"] .chart-summary'))
        # The line is drawn across A's zoomed plot, both ends included.
        for left, right in ((0.02, 0.2), (0.8, 0.98)):
            line = self.a.series_pixels(chart, 0, left, 0, right, 1)
            self.assertGreater(line["opaque"], 10, f"A: the line between {left} and {right} of the view {line}")

        # B stays live: no view, its domain the live window, which keeps moving with appends; A's
        # picture holds still (its view ends before the live edge, so it is sent no appends).
        b_info = self.b.inspect()["charts"][chart]
        self.assertIsNone(b_info["view"])
        self.assertFalse(self.b.zoom_badge(chart)["shown"])
        self.assertEqual(b_info["domain"], b_info["liveDomain"])
        a_live, a_points = info["liveDomain"], info["points"]
        wait_until(lambda: self.b.inspect()["charts"][chart]["domain"][1] >= b_info["domain"][1] + 2 * 86_400_000,
                   "B's live window moves on by two days", lambda: self.b.inspect()["charts"][chart]["domain"])
        b_now = self.b.inspect()["charts"][chart]
        self.assertGreater(b_now["seq"], b_info["seq"])
        self.assertEqual(b_now["domain"], b_now["liveDomain"])
        a_now = self.a.inspect()["charts"][chart]
        self.assertEqual(a_now["view"], view)
        self.assertEqual(a_now["domain"], [view["from"], view["to"]])
        self.assertEqual((a_now["liveDomain"], a_now["points"]), (a_live, a_points), "A was sent no appends")

        # Wheel events are coalesced: a dozen in one frame send one view, zoomed by all of them.
        self.a.spy_on_sent_messages()
        self.assertEqual(self.a.dispatch_wheel(chart, 0.25, 0.5, [-20] * 12), 12, "the page takes the wheel")
        wait_until(lambda: self.sent_views(self.a, chart), "A sends the coalesced view")
        time.sleep(0.3)
        views = self.sent_views(self.a, chart)
        self.assertEqual(len(views), 1, f"12 wheel events in one frame go out as one view: {views}")
        span = views[0]["to"] - views[0]["from"]
        self.assertAlmostEqual(span / (view["to"] - view["from"]), 0.618, delta=0.01, msg="exp(−240 / 500)")
        anchor = view["from"] + 0.25 * (view["to"] - view["from"])
        self.assertAlmostEqual((anchor - views[0]["from"]) / span, 0.25, delta=1 / info["plot"]["width"],
                               msg="the value under the pointer stays (to the pixel: clientX is whole)")
        self.wait_view_settled(self.a, chart)
        # A trackpad pinch (ctrl+wheel) far beyond the narrowest span: clamped, finite, accepted.
        self.a.spy_on_sent_messages()
        self.a.dispatch_wheel(chart, 0.5, 0.5, [-400] * 60, ctrl=True)
        info = self.wait_view_settled(self.a, chart)
        narrowest = info["view"]["to"] - info["view"]["from"]
        self.assertGreaterEqual(narrowest, 2e-9 * info["view"]["to"], info["view"])
        self.assertLess(narrowest, 60_000, "zoomed in to seconds")
        # A category chart takes no zoom: the wheel scrolls the page and no view is sent.
        self.assertEqual(self.a.dispatch_wheel("sales", 0.5, 0.5, [-120]), 0)
        time.sleep(0.3)
        self.assertEqual(self.sent_views(self.a, "sales"), [])
        self.assert_no_console_errors()

    def test_8j_range_selected_in_b_inside_as_view_is_drawn_in_a(self):
        chart = "zoomable"
        self.define_chart(chart, {"title": "Zoomable", "mark": "line", "x": {"kind": "time"}, "y": {"domain": [0, 100]},
                                  "series": ["v"], "interactions": {"hover": False, "drag": "range", "tap": False}},
                          [{"series": "v", "x": DEC_1 + i * HOUR // 2, "y": 50 + (i % 7) * 5} for i in range(49)])
        for browser in (self.a, self.b):
            browser.wait_chart(chart, points=49)
        self.a.spy_on_sent_messages()
        self.a.dispatch_wheel(chart, 0.5, 0.5, [-400])  # one frame: zooms by exp(−0.8) around the middle
        info = self.wait_view_settled(self.a, chart)
        view, plot = info["view"], info["plot"]
        span = view["to"] - view["from"]
        live = self.b.inspect()["charts"][chart]["domain"]
        self.assertAlmostEqual(span / (live[1] - live[0]), 0.449, delta=0.01)

        # B drags a range over values at 0.1 … 0.5 of A's view (about 0.32 … 0.5 of the live window).
        to_b = lambda f: (view["from"] + f * span - live[0]) / (live[1] - live[0])  # noqa: E731
        self.b.press(chart, to_b(0.1), 0.6)
        self.b.move_pressed(chart, [to_b(0.3), to_b(0.5)])
        b_id = self.b.inspect()["me"]["id"]

        def a_range():
            rng = self.a.inspect()["charts"][chart]["selection"]["range"]
            return rng if rng and rng["by"] == b_id and abs((rng["to"] - view["from"]) / span - 0.5) < 0.02 else None
        rng = wait_until(a_range, "A receives B's range", lambda: self.a.inspect()["charts"][chart]["selection"])
        time.sleep(0.15)
        # A draws it where its view's domain puts the values, not at the live window's fractions.
        x_of = lambda value: plot["x"] + (value - view["from"]) / span * plot["width"]  # noqa: E731
        left, right = x_of(rng["from"]), x_of(rng["to"])
        self.assertLess(abs((rng["from"] - view["from"]) / span - 0.1), 0.02, rng)
        top, height = plot["y"] + 30, plot["height"] - 32  # below the range's label
        inside = self.a.pixels(chart, "overlay", (left + 3, top, right - left - 6, height))
        self.assertGreater(inside["painted"], inside["total"] * 0.9, f"A: the range at its view's pixels {inside}")
        for x0, x1 in ((plot["x"] + 2, left - 4), (right + 4, plot["x"] + plot["width"] - 2)):
            outside = self.a.pixels(chart, "overlay", (x0, top, x1 - x0, height))
            self.assertEqual(outside["painted"], 0, f"A: nothing of the range between {x0:.0f} and {x1:.0f} px {outside}")
        live_left = plot["x"] + rng["fromFraction"] * plot["width"]
        self.assertGreater(abs(live_left - left), 20, "the live window's fractions would put it elsewhere")
        # B, live, draws it at the server's fractions as before.
        band = self.b.fraction_pixels(chart, rng["fromFraction"], rng["toFraction"])
        self.assertGreater(band["painted"], band["total"] * 0.8, f"B's range {band}")
        self.b.release_pointer()
        wait_until(lambda: self.a.inspect()["charts"][chart]["selection"]["range"] is None, "the range ends in A")
        self.assertEqual(self.a.pixels(chart, "overlay")["painted"], 0)

        # A range wholly before A's view is listed but not drawn.
        self.b.press(chart, 0.03, 0.6)
        self.b.move_pressed(chart, [0.1, 0.2])
        wait_until(lambda: "Total v:" in self.a.range_summary(chart), "A lists B's range before its view",
                   lambda: self.a.range_summary(chart))
        rng = self.a.inspect()["charts"][chart]["selection"]["range"]
        self.assertLess(rng["to"], view["from"], rng)
        self.assertEqual(self.a.pixels(chart, "overlay")["painted"], 0, "A draws nothing outside its view")
        self.b.release_pointer()
        wait_until(lambda: self.a.range_summary(chart) == "", "the range ends in A")

        # Replacing the chart ends A's view: the badge goes and A draws the live window.
        status, body = self.server.api("PUT", f"/api/charts/{chart}", {
            "title": "Zoomable again", "mark": "line", "x": {"kind": "time"}, "y": {"domain": [0, 100]},
            "series": ["v"], "interactions": {"hover": False, "drag": "range", "tap": False}})
        self.assertEqual(status, 200, body)
        wait_until(lambda: self.a.text_of(f'[data-chart="{chart}"] h2') == "Zoomable again", "A gets the new spec")
        info = self.a.wait_chart(chart, points=49)
        self.assertIsNone(info["view"])
        self.assertFalse(self.a.zoom_badge(chart)["shown"], "the badge goes with the view")
        self.assertEqual(info["domain"], self.b.inspect()["charts"][chart]["domain"])
        self.assert_no_console_errors()

    def test_8k_double_click_in_a_returns_to_live(self):
        chart = "temperature"
        self.addCleanup(self.back_to_live, self.a, chart)
        self.a.spy_on_sent_messages()
        self.a.dispatch_wheel(chart, 0.5, 0.5, [-400])
        info = self.wait_view_settled(self.a, chart)
        self.assertTrue(self.a.zoom_badge(chart)["shown"])
        frozen = info["domain"]
        self.a.spy_on_sent_messages()
        self.a.double_click(chart, 0.5, 0.5)
        wait_until(lambda: self.sent_views(self.a, chart), "A sends a view back to live")
        sent = self.sent_views(self.a, chart)
        self.assertEqual([(m["live"], "from" in m or "to" in m) for m in sent], [(True, False)], sent)
        wait_until(lambda: not self.a.zoom_badge(chart)["shown"], "the badge goes", lambda: self.a.zoom_badge(chart))
        info = self.a.inspect()["charts"][chart]
        self.assertIsNone(info["view"])
        self.assertNotIn("Zoomed", self.a.text_of(f'[data-chart="{chart}"] .chart-summary'))
        # A follows the live window again: appends arrive and move its domain.
        self.assertGreater(info["domain"][1] - info["domain"][0], frozen[1] - frozen[0])
        wait_until(lambda: self.a.inspect()["charts"][chart]["domain"][1] > info["domain"][1],
                   "A's domain follows the live window", lambda: self.a.inspect()["charts"][chart]["domain"])
        now = self.a.inspect()["charts"][chart]
        self.assertEqual(now["domain"], now["liveDomain"])
        # The double-click's two taps pinned and unpinned the same point; a double-click while live sends nothing.
        wait_until(lambda: self.a.inspect()["charts"][chart]["selection"]["pin"] is None, "no pin is left",
                   lambda: self.a.inspect()["charts"][chart]["selection"]["pin"])
        self.a.double_click(chart, 0.5, 0.5)
        time.sleep(0.3)
        self.assertEqual(len(self.sent_views(self.a, chart)), 1, "nothing to return from")
        wait_until(lambda: self.a.inspect()["charts"][chart]["selection"]["pin"] is None, "no pin is left")
        self.assert_no_console_errors()

    def test_8l_touch_pinch_zooms_and_a_reconnect_returns_to_live(self):
        chart = "pinchable"
        self.define_chart(chart, {"title": "Pinchable", "mark": "point", "x": {"kind": "linear"},
                                  "series": ["v"], "interactions": {"hover": False, "drag": "range", "tap": True}},
                          [{"series": "v", "x": i, "y": i % 5} for i in range(41)])
        with self.third_browser(SOCKET_CONTROL_JS, SPY_JS) as c:
            c.wait_chart(chart, points=41)
            d0, d1 = c.inspect()["charts"][chart]["domain"]
            c.driver.execute_script("window.__sentMessages.length = 0")
            # Two fingers at 0.4 and 0.6 of the plot spread to 0.2 and 0.8: the values under them stay
            # under them, so the view is the middle third.
            c.pinch(chart, (0.4, 0.6), (0.2, 0.8))
            info = self.wait_view_settled(c, chart)
            third = (d1 - d0) / 3
            self.assertAlmostEqual(info["view"]["from"], d0 + third, delta=third * 1e-6)
            self.assertAlmostEqual(info["view"]["to"], d1 - third, delta=third * 1e-6)
            views = self.sent_views(c, chart)
            self.assertTrue(1 <= len(views) <= 7, f"at most one view per frame: {views}")
            phases = [m["phase"] for m in c.sent("pointer") if m["chart"] == chart]
            self.assertEqual(phases, ["down", "leave"], "the second finger ends the first one's press")
            # Touch input works as before once the fingers are up: a tap pins, seen in A.
            c.tap(chart, 0.5, 0.5)
            wait_until(lambda: self.a.inspect()["charts"][chart]["selection"]["pin"], "A sees C's pin",
                       lambda: self.a.selection_text(chart))
            # Views are per connection: after a reconnect C is live again.
            c.driver.execute_script("window.__dropConnection()")
            wait_until(lambda: c.inspect()["charts"][chart]["view"] is None and c.inspect()["status"] == "connected",
                       "C reconnects live", c.status_text, timeout=15)
            info = c.wait_chart(chart, points=41)
            self.assertFalse(c.zoom_badge(chart)["shown"])
            self.assertEqual(info["domain"], [d0, d1])
            self.assertEqual(c.console_errors(), [])
        self.assert_no_console_errors()

    # -- reconnect -----------------------------------------------------------------------

    def test_9_pages_reconnect_after_server_restart(self):
        # A chart only this server has: the restarted one (the demo alone) must take its panel away.
        self.addCleanup(self.server.api, "DELETE", "/api/charts/ephemeral")
        status, body = self.server.api("PUT", "/api/charts/ephemeral", {
            "title": "Ephemeral", "mark": "point", "x": {"kind": "linear"}, "series": ["p"]})
        self.assertEqual(status, 201, body)
        for browser in (self.a, self.b):
            browser.wait_chart("ephemeral", points=0)
        before = {b.name: b.inspect()["me"]["id"] for b in (self.a, self.b)}
        self.server.stop()
        for browser in (self.a, self.b):
            wait_until(lambda: browser.inspect()["status"] in ("reconnecting", "offline"),
                       f"{browser.name} notices the server went away", browser.status_text)
            self.assertIn(browser.status_text(), ("Reconnecting…", "Offline"))
        self.server.start()
        server_order = self.server.chart_ids()
        self.assertEqual(server_order, DEMO_CHARTS)
        for browser in (self.a, self.b):
            browser.wait_ready(timeout=20)
            state = browser.inspect()
            self.assertEqual(state["status"], "connected")
            self.assertEqual(browser.panel_order(), server_order, f"{browser.name}: the new server's charts")
            self.assertEqual(state["order"], server_order)
            for chart, info in state["charts"].items():
                self.assertGreater(info["points"], 0, f"{browser.name}/{chart} after restart")
                stats = browser.pixels(chart, "base")
                self.assertGreater(stats["painted"], stats["total"] * 0.02, f"{browser.name}/{chart}")
        wait_until(lambda: "Bea" in self.a.viewer_names(), "B says its remembered name again",
                   self.a.viewer_names)
        after = {b.name: b.inspect()["me"]["id"] for b in (self.a, self.b)}
        self.assertEqual(len(set(after.values())), 2, f"two distinct viewers after restart: {after} (before {before})")
        # The selection still travels after the restart.
        self.a.hover("sales", fraction_x=2.5 / 12, fraction_y=0.5)
        wait_until(lambda: "Coffee 1,900" in self.b.selection_text("sales"),
                   "hover travels after restart", lambda: self.b.selection_text("sales"))
        self.a.leave("sales")

    def test_9b_server_refusal_is_shown_beside_the_field_and_not_resent(self):
        # C believes the server takes 100 characters, so it sends a 50-character name the server
        # (40) refuses.
        long_name = "Fifty characters, more than this server will take."
        self.assertEqual(len(long_name), 50)
        with self.third_browser(wire_tap_js({"maxNameLength": 100}), SPY_JS) as c:
            c.set_name("Cleo")
            wait_until(lambda: "Cleo" in self.a.viewer_names(), "A lists C as Cleo", self.a.viewer_names)
            wait_until(lambda: c.stored_name() == "Cleo", "C remembers Cleo", c.stored_name)
            c.set_name(long_name)
            self.assert_name_error_shown(c, 'field "name" is longer than 40 characters (50)')
            sent = [m for m in c.sent("hello") if m["name"] == long_name]
            self.assertEqual(len(sent), 1, "sent once")
            refusals = [e for e in c.received_errors() if e.get("ref") == sent[0]["ref"]]
            self.assertEqual([e["code"] for e in refusals], ["bad_field"], f"the server echoes {sent[0]['ref']}")
            self.assertIn(refusals[0]["message"], c.name_field()["error"])
            self.assertEqual(c.stored_name(), "Cleo", "the refused name is not stored")
            self.assertIn("Cleo (you)", c.viewer_names(), "the server keeps the old name")
            self.assertNotIn(long_name, self.a.viewer_names())

            c.driver.execute_script("window.__sentMessages.length = 0")
            self.server.stop()
            wait_until(lambda: c.inspect()["status"] in ("reconnecting", "offline"),
                       "C notices the server went away", c.status_text)
            self.server.start()
            for browser in (c, self.a, self.b):
                browser.wait_ready(timeout=20)
            wait_until(lambda: "Cleo" in self.a.viewer_names(), "C says Cleo again after reconnecting",
                       self.a.viewer_names)
            wait_until(lambda: c.name_field()["error"] == "", "the error goes once a later hello succeeds",
                       c.name_field)
            self.assertEqual([m["name"] for m in c.sent("hello")], ["Cleo"], "the refused name is not re-sent")
            self.assertEqual(c.stored_name(), "Cleo")
            self.assertIsNone(c.name_field()["invalid"])
            self.assertEqual(c.console_errors(), [])
        wait_until(lambda: "Bea" in self.a.viewer_names(), "B is Bea again after the restart", self.a.viewer_names)


# Records the URL of every WebSocket the page opens (run before the page's own scripts).
SOCKET_URLS_JS = """
window.__socketURLs = [];
const NativeSocket = window.WebSocket;
window.WebSocket = class extends NativeSocket {
  constructor(url, protocols) { super(url, protocols); window.__socketURLs.push(this.url); }
};
"""


class DashboardOverTLS(unittest.TestCase):
    """The page served over HTTPS (`--tls-cert` / `--tls-key`, a self-signed certificate made by
    openssl) connects over wss: and shows live data."""

    def test_page_over_https_connects_over_wss_and_shows_live_data(self):
        binary = os.environ.get("CHARTCAST_BIN", str(REPO / ".build" / "debug" / "chartcast"))
        web_root = os.environ.get("CHARTCAST_WEB_ROOT", str(REPO / "web"))
        with tempfile.TemporaryDirectory(prefix="chartcast-tls-") as directory:
            server = ServerProcess(binary, free_port(), web_root, tls=self_signed_certificate(directory))
            server.start()
            browser = None
            try:
                self.assertEqual(server.chart_ids(), DEMO_CHARTS, "the API answers over HTTPS")
                browser = Browser("TLS", width=1200, height=900, accept_self_signed=True)
                browser.on_new_document(SOCKET_URLS_JS)
                browser.open(server.url("/"))
                browser.wait_ready()
                self.assertEqual(browser.driver.execute_script("return location.protocol"), "https:")
                urls = browser.driver.execute_script("return window.__socketURLs")
                self.assertEqual(urls, [f"wss://127.0.0.1:{server.port}/ws"], "one socket, over wss:")
                state = browser.inspect()
                self.assertEqual(state["status"], "connected")
                self.assertEqual(sorted(state["charts"]), sorted(DEMO_CHARTS))
                first = {chart: info["seq"] for chart, info in state["charts"].items()}
                wait_until(lambda: any(info["seq"] >= first[chart] + 2
                                       for chart, info in browser.inspect()["charts"].items()),
                           "live ticks arrive over wss:", lambda: {c: i["seq"] for c, i in browser.inspect()["charts"].items()})
                self.assertEqual(browser.console_errors(), [])
            finally:
                if browser is not None:
                    browser.quit()
                server.stop()


class DashboardOnTwoInstances(unittest.TestCase):
    """Two servers joined through one real redis-server (`--redis`), one page on each: the
    pages share one dashboard, one selection and one viewer list."""

    def test_a_hover_in_a_page_on_one_instance_is_drawn_in_a_page_on_the_other(self):
        binary = os.environ.get("CHARTCAST_BIN", str(REPO / ".build" / "debug" / "chartcast"))
        web_root = os.environ.get("CHARTCAST_WEB_ROOT", str(REPO / "web"))
        redis = RedisProcess(free_port())
        redis.start()
        servers, browsers = [], []
        try:
            for _ in range(2):
                server = ServerProcess(binary, free_port(), web_root, extra_args=["--redis", redis.url])
                server.start()
                servers.append(server)
            for name, server in zip("PQ", servers):
                browser = Browser(name, width=1200, height=900)
                browser.open(server.url("/"))
                browsers.append(browser)
            for browser in browsers:
                browser.wait_ready()
            p, q = browsers
            me_p, me_q = p.inspect()["me"], q.inspect()["me"]
            self.assertNotEqual(me_p["id"], me_q["id"], "viewer ids are unique across the instances")
            def lists_both(browser):
                names = browser.viewer_names()
                return all(any(item.startswith(me["name"]) for item in names) for me in (me_p, me_q))
            for browser in browsers:
                wait_until(lambda: lists_both(browser), f"{browser.name} lists both viewers", browser.viewer_names)
            p.hover("sales", fraction_x=2.5 / 12, fraction_y=0.5)
            wanted = ["March", "Ice Cream 900", "Coffee 1,900", "Muffins 800"]
            wait_until(lambda: all(w in q.selection_text("sales") for w in wanted),
                       "Q (on the other instance) shows P's March hover", lambda: q.selection_text("sales"))
            self.assertIn(me_p["name"], q.selection_text("sales"), "Q names the viewer who hovers")
            march = q.band_pixels("sales", 2, 12)
            self.assertGreater(march["painted"], march["total"] * 0.8, f"Q shades March: {march}")
            self.assertEqual(p.inspect()["charts"]["sales"]["selection"], q.inspect()["charts"]["sales"]["selection"],
                             "one selection, the same on both pages")
            self.assertEqual(p.inspect()["charts"]["sales"]["seq"], q.inspect()["charts"]["sales"]["seq"])
            p.leave("sales")
            wait_until(lambda: q.selection_text("sales") == "", "Q clears the hover after P leaves",
                       lambda: q.selection_text("sales"))
            for browser in browsers:
                self.assertEqual(browser.console_errors(), [])
        finally:
            for browser in browsers:
                browser.quit()
            for server in servers:
                server.stop()
            redis.stop()


# Opens a WebSocket to the server's /ws from whatever page the browser shows and resolves with
# what happened: whether it opened, whether a `welcome` arrived, and how it ended.
PROBE_SOCKET_JS = """
const [url, done] = arguments;
const result = {opened: false, welcome: false, error: false, closeCode: null};
const socket = new WebSocket(url, 'chartcast.v1');
socket.onopen = () => { result.opened = true; };
socket.onerror = () => { result.error = true; };
socket.onmessage = (event) => {
  try { if (JSON.parse(event.data).type === 'welcome') { result.welcome = true; socket.close(1000); } } catch {}
};
socket.onclose = (event) => { result.closeCode = event.code; done(result); };
setTimeout(() => done(result), 8000);
"""


class QuietFileHandler(http.server.SimpleHTTPRequestHandler):
    """Serves files without a log line per request."""

    def log_message(self, *args):
        pass


class AccessInTheBrowser(unittest.TestCase):
    """Origins and the viewer token, with their own servers and a fresh browser per test."""

    def setUp(self):
        self.binary = os.environ.get("CHARTCAST_BIN", str(REPO / ".build" / "debug" / "chartcast"))
        self.web_root = os.environ.get("CHARTCAST_WEB_ROOT", str(REPO / "web"))
        self.browser = None

    def tearDown(self):
        if self.browser is not None:
            self.browser.quit()

    def start_server(self, *args):
        server = ServerProcess(self.binary, free_port(), self.web_root, extra_args=args)
        server.start()
        self.addCleanup(server.stop)
        return server

    def serve_another_origin(self):
        """A plain static server on another loopback port (another origin), serving one page."""
        directory = tempfile.mkdtemp(prefix="chartcast-other-origin-")
        Path(directory, "other.html").write_text("<!doctype html><title>Another site</title><p>elsewhere</p>\n")
        handler = functools.partial(QuietFileHandler, directory=directory)
        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        self.addCleanup(httpd.server_close)
        self.addCleanup(httpd.shutdown)
        return f"http://127.0.0.1:{httpd.server_address[1]}"

    def test_a_page_from_another_origin_cannot_open_the_socket(self):
        server = self.start_server()
        other = self.serve_another_origin()
        socket_url = f"ws://127.0.0.1:{server.port}/ws"
        self.browser = Browser("C", width=1000, height=800)
        self.browser.open(f"{other}/other.html")
        foreign = self.browser.driver.execute_async_script(PROBE_SOCKET_JS, socket_url)
        self.assertFalse(foreign["opened"], f"another origin's page opened the socket: {foreign}")
        self.assertFalse(foreign["welcome"], foreign)
        self.assertEqual(foreign["closeCode"], 1006, f"the handshake fails: {foreign}")
        foreign_errors = self.browser.console_errors()
        self.assertTrue(any("Unexpected response code: 403" in line for line in foreign_errors), foreign_errors)
        # The dashboard itself connects, and the same probe from its page gets a welcome.
        self.browser.open(server.url("/"))
        self.browser.wait_ready()
        own = self.browser.driver.execute_async_script(PROBE_SOCKET_JS, socket_url)
        self.assertTrue(own["opened"] and own["welcome"], f"the dashboard's own origin: {own}")
        self.assertEqual(self.browser.console_errors()[len(foreign_errors):], [],
                         "the page runs under its Content-Security-Policy")
        # It does so under its Content-Security-Policy, which the browser enforces: an inline
        # script is refused, a socket to another origin is blocked.
        policy = self.browser.driver.execute_async_script(
            "const done = arguments[0]; fetch(location.href).then(r => done(r.headers.get('content-security-policy')))")
        self.assertIn("connect-src 'self'", policy or "")
        ran = self.browser.driver.execute_script(
            "const s = document.createElement('script'); s.textContent = 'window.__inlineRan = true';"
            "document.head.append(s); return Boolean(window.__inlineRan)")
        self.assertFalse(ran, "an inline script ran despite the policy")
        blocked = self.browser.driver.execute_script(
            "return new Promise((resolve) => { document.addEventListener('securitypolicyviolation',"
            " (e) => resolve(e.violatedDirective), {once: true});"
            " try { new WebSocket(`ws://127.0.0.1:${arguments[0]}/`); } catch (error) { resolve('threw ' + error.name); } })",
            free_port())
        self.assertTrue(blocked.startswith("connect-src") or blocked.startswith("threw"), blocked)
        log = server.log_tail(200)
        self.assertIn(f'origin "{other}" is not allowed', log)

    def test_b_page_forwards_its_token_and_shows_a_refusal_without_it(self):
        server = self.start_server("--viewer-token", "tok-123")
        self.browser = Browser("C", width=1000, height=800)
        self.browser.open(server.url("/?token=tok-123"))
        self.browser.wait_ready()
        self.assertEqual(self.browser.status_text(), "Connected")
        self.assertEqual(len(self.browser.inspect()["charts"]), len(DEMO_CHARTS))

        for path in ("/", "/?token=wrong"):
            self.browser.open(server.url(path))
            wait_until(lambda: (self.browser.inspect() or {}).get("status") == "unauthorized",
                       f"the page at {path} shows that access was refused", self.browser.status_text)
            self.assertIn("Access denied", self.browser.status_text())
            time.sleep(1.5)
            self.assertEqual(self.browser.inspect()["status"], "unauthorized", "it stays refused instead of spinning")
            self.assertEqual(self.browser.inspect()["charts"], {}, "no charts without the token")


class CountingResult(unittest.TextTestResult):
    """Counts passes so the run can end with a plain "N passed, N failed" line."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.passed = 0

    def addSuccess(self, test):
        super().addSuccess(test)
        self.passed += 1


def main():
    started = time.monotonic()
    suite = unittest.TestSuite([unittest.defaultTestLoader.loadTestsFromTestCase(DashboardInTwoBrowsers),
                                unittest.defaultTestLoader.loadTestsFromTestCase(DashboardOverTLS),
                                unittest.defaultTestLoader.loadTestsFromTestCase(AccessInTheBrowser),
                                unittest.defaultTestLoader.loadTestsFromTestCase(DashboardOnTwoInstances)])
    runner = unittest.TextTestRunner(verbosity=2, resultclass=CountingResult)
    result = runner.run(suite)
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    if result.testsRun == 0 or (failed == 0 and result.passed == 0):
        failed = max(failed, 1)
    elapsed = time.monotonic() - started
    print(f"browser tests took {elapsed:.1f} s")
    print(f"{result.passed} passed, {failed} failed, {len(result.skipped)} skipped")
    return 0 if failed == 0 and result.passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
