#!/usr/bin/env python3
"""History read end to end: writes TOTAL points (default 10^7) to one chart of a release
chartcast over HTTP, then times GET /api/charts/{id}/points?max=2000 (the whole range, read
from the SQLite history and the live window, M4-downsampled) over a fresh connection each.

Usage: scripts/history-read.py [BIN] [TOTAL] [READS]
  BIN    chartcast binary (default .build/release/chartcast; build with `swift build -c release`)
  TOTAL  points to store (default 10,000,000)
  READS  timed reads (default 20)

The server runs on a free loopback port with --data in a temporary directory (removed at the
end) and --tick 3600 (no demo traffic meanwhile). Prints progress while writing and a summary of the reads.
"""
import http.client
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

BIN = sys.argv[1] if len(sys.argv) > 1 else ".build/release/chartcast"
TOTAL = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000_000
READS = int(sys.argv[3]) if len(sys.argv) > 3 else 20
BATCH = 10_000
CHART = "history"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(port, method, path, body=None, content_type="application/json"):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = {"Content-Type": content_type} if body is not None else {}
    conn.request(method, path, body=body, headers=headers)
    answer = conn.getresponse()
    data = answer.read()
    conn.close()
    return answer.status, data


def main():
    if not os.access(BIN, os.X_OK):
        sys.exit(f"history-read: no chartcast binary at {BIN} (swift build -c release --product chartcast)")
    data_dir = tempfile.mkdtemp(prefix="chartcast-history-read-")
    port = free_port()
    server = subprocess.Popen([BIN, "--host", "127.0.0.1", "--port", str(port), "--data", data_dir,
                               "--tick", "3600", "--log-level", "warn"])
    try:
        for _ in range(100):
            try:
                if request(port, "GET", "/healthz")[0] == 200:
                    break
            except OSError:
                time.sleep(0.1)
        else:
            sys.exit("history-read: the server did not answer /healthz")
        spec = {"title": "history read", "mark": "line", "x": {"kind": "linear"},
                "series": ["s"], "window": 1000, "retention": "3650d"}
        status, body = request(port, "PUT", f"/api/charts/{CHART}", json.dumps(spec))
        if status not in (200, 201):
            sys.exit(f"history-read: PUT answered {status}: {body[:200]!r}")

        started = time.monotonic()
        y = 0.0
        seed = 0x9E3779B97F4A7C15
        written = 0
        next_report = started + 5
        while written < TOTAL:
            count = min(BATCH, TOTAL - written)
            lines = ["x,s"]
            for i in range(written, written + count):
                seed = (seed * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
                y += ((seed >> 11) / float(1 << 53)) - 0.5
                lines.append(f"{i},{y:.4f}")
            status, body = request(port, "POST", f"/api/charts/{CHART}/points",
                                   "\n".join(lines).encode(), "text/csv")
            if status != 200:
                sys.exit(f"history-read: write at point {written} answered {status}: {body[:200]!r}")
            written += count
            now = time.monotonic()
            if now >= next_report:
                print(f"history-read: {written:,} of {TOTAL:,} points written "
                      f"({written / (now - started):,.0f} points/s)", flush=True)
                next_report = now + 5
        elapsed = time.monotonic() - started
        print(f"history-read: {TOTAL:,} points written in {elapsed:.1f} s "
              f"({TOTAL / elapsed:,.0f} points/s, each write answered after its commit)")

        times = []
        returned = 0
        for _ in range(READS):
            t0 = time.monotonic()
            status, body = request(port, "GET", f"/api/charts/{CHART}/points?max=2000")
            times.append((time.monotonic() - t0) * 1000)
            if status != 200:
                sys.exit(f"history-read: read answered {status}: {body[:200]!r}")
            returned = sum(len(s["points"]) for s in json.loads(body)["series"])
        first, last = (lambda points: (points[0][0], points[-1][0]))(json.loads(body)["series"][0]["points"])
        # Every point is still there: a slice at full resolution counts them.
        status, slice_body = request(port, "GET", f"/api/charts/{CHART}/points?from=0&to=99999&max=1000000")
        sliced = sum(len(s["points"]) for s in json.loads(slice_body)["series"])
        if first != 0 or last != TOTAL - 1 or (TOTAL >= 100_000 and sliced != 100_000):
            sys.exit(f"history-read: the stored range is [{first}, {last}] with {sliced:,} points in [0, 99999]; "
                     f"expected [0, {TOTAL - 1}] and 100,000")
        times.sort()
        print(f"history-read: GET points?max=2000 over {TOTAL:,} stored points, {READS} reads: "
              f"min {times[0]:.1f} ms, median {statistics.median(times):.1f} ms, "
              f"max {times[-1]:.1f} ms; {returned:,} points returned, {len(body):,} bytes, x from {first} to {last}; "
              f"[0, 99999] at full resolution: {sliced:,} points")
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
