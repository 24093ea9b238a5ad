#!/usr/bin/python3
"""Real-browser tests of the ChartCast dashboard page (web/).

Starts the real server (binary from $CHARTCAST_BIN, default .build/debug/chartcast) on a
free loopback port, opens the page in two headless Chromium browsers (A and B, different
window sizes and pixel ratios) and checks that selections made in one are drawn in the
other, that range-dragging, tapping, right-to-left and reconnecting work, and that the
page logs no console errors. Prints "N passed, N failed" at the end and exits non-zero on
any failure.

Run: CHARTCAST_BIN=.build/debug/chartcast /usr/bin/python3 Tests/browser/test_dashboard.py
(CHARTCAST_WEB_ROOT overrides the page directory, e.g. to try a changed copy of web/.)
"""

import os
import sys
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser_support import Browser, ServerProcess, free_port, wait_until  # noqa: E402
from page_scripts import DISPATCH_MOVES_JS, MODULES_JS  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SCREENSHOT = REPO / "docs" / "screenshot.png"

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
        self.assertEqual(self.b.driver.execute_script("return localStorage.getItem('chartcast.name')"), "Bea")
        self.assertIn("Bea (you)", self.b.viewer_names())

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

        self.b.focus_chart("intake")
        self.b.keys("HOME")
        for _ in range(3):
            self.b.keys("ARROW_RIGHT", shift=True)
        wait_until(lambda: "Total Calories:" in self.a.range_summary("intake"),
                   "Shift+ArrowRight extends a range (seen in A)", lambda: self.a.range_summary("intake"))
        rng = self.a.inspect()["charts"]["intake"]["selection"]["range"]
        self.assertEqual(rng["count"], 4, f"Home + 3 × Shift+ArrowRight covers four bars: {rng}")
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
