#!/usr/bin/python3
"""Real-browser tests of the ChartCast dashboard page (web/).

Starts the real server (binary from $CHARTCAST_BIN, default .build/debug/chartcast) on a
free loopback port, opens the page in two headless Chromium browsers (A and B, different
window sizes and pixel ratios) and checks that selections made in one are drawn in the
other, that range-dragging, tapping, right-to-left and reconnecting work, that the page
follows the limits announced in `welcome` and shows a refused name beside the name field
(a third browser, C, joins for those), and that the page logs no console errors. Prints
"N passed, N failed" at the end and exits non-zero on any failure.

Run: CHARTCAST_BIN=.build/debug/chartcast /usr/bin/python3 Tests/browser/test_dashboard.py
(CHARTCAST_WEB_ROOT overrides the page directory, e.g. to try a changed copy of web/.)
"""

import contextlib
import os
import sys
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser_support import Browser, ServerProcess, free_port, wait_until  # noqa: E402
from page_scripts import (DISPATCH_MOVES_JS, MODULES_JS, NAMES_JS, SERIES_PIXELS_JS, SPY_JS,  # noqa: E402
                          wire_tap_js)

REPO = Path(__file__).resolve().parents[2]
SCREENSHOT = REPO / "docs" / "screenshot.png"

# What the server announces in `welcome.limits`, and what the page assumes without them.
V1_LIMITS = {"maxMessageBytes": 65536, "maxNameLength": 40, "maxNameBytes": 160, "maxRefLength": 64,
             "messagesPerSecond": 240, "messageBurst": 480, "maxHovers": 8, "maxRangeRows": 500,
             "maxCoordinate": 1000000}

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
    def third_browser(self, *early_scripts):
        """A fresh browser C (empty localStorage) showing the dashboard, with `early_scripts`
        run before the page's own on every load; closed afterwards."""
        c = Browser("C", width=1200, height=900)
        try:
            for script in early_scripts:
                c.on_new_document(script)
            c.open(self.server.url("/"))
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
        self.assertEqual(result["points"], [[2, 20], [3, 35], [4, 40], [5, 50], [6, 60]])
        self.assertEqual(result["categories"], {"Mon": 5, "Tue": 7})
        self.assertEqual(result["drawable"], [False, True, True, False, None],
                         "nothing to draw before a snapshot or without the server's y domain")
        self.assertEqual(result["yDomains"], [[36, 37], [35, 37], [35, 37]], "the server's y domain, kept until it changes")
        self.assertEqual(result["numbers"], ["1,900", "36.55", "12,345", "–"])
        self.assertEqual(result["url"], "ws://127.0.0.1:%d/ws" % self.server.port)
        self.assertEqual(result["secureUrl"], "wss://example.org/ws")

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

    # -- reconnect -----------------------------------------------------------------------

    def test_9_pages_reconnect_after_server_restart(self):
        before = {b.name: b.inspect()["me"]["id"] for b in (self.a, self.b)}
        self.server.stop()
        for browser in (self.a, self.b):
            wait_until(lambda: browser.inspect()["status"] in ("reconnecting", "offline"),
                       f"{browser.name} notices the server went away", browser.status_text)
            self.assertIn(browser.status_text(), ("Reconnecting…", "Offline"))
        self.server.start()
        for browser in (self.a, self.b):
            browser.wait_ready(timeout=20)
            state = browser.inspect()
            self.assertEqual(state["status"], "connected")
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
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(DashboardInTwoBrowsers)
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
