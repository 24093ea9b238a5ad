#!/usr/bin/env python3
"""The server's memory per viewer that stops reading.

Starts `chartcast` (CHARTCAST_BIN, default .build/release/chartcast) with the given extra flags,
defines a chart of 4 series of 120,000 points, then opens N raw WebSocket viewers (default 100)
that each ask for the chart's widest snapshot three times (a viewport 1,000,000 px wide, served as
8,192 columns: 131,072 points, a frame of about 2.4 MB) and never read.
Prints the server's VmRSS before, 5 s after the viewers stalled and 12 s after (once the
backlog bound has closed them, unless the flags lift it), and /metrics' slow-viewer counters.

    scripts/stalled-memory.py 100                                   # default bounds
    scripts/stalled-memory.py 100 --max-backlog 17179869184 --choke-timeout 86400   # unbounded
"""
import base64, http.client, json, math, os, re, socket, subprocess, sys, tempfile, time

count = int(sys.argv[1]) if len(sys.argv) > 1 else 100
RCVBUF = int(os.environ.get("STALLED_RCVBUF", "16384"))
flags = sys.argv[2:]
binary = os.environ.get("CHARTCAST_BIN", ".build/release/chartcast")
log = tempfile.NamedTemporaryFile(prefix="chartcast-", suffix=".log", delete=False)
server = subprocess.Popen([binary, "--port", "0", "--data", "none", "--log-level", "info"] + flags, stderr=log)
port = None
for _ in range(100):
    match = re.search(r"listening on http://127\.0\.0\.1:(\d+)/", open(log.name).read())
    if match:
        port = int(match.group(1))
        break
    time.sleep(0.1)
assert port, open(log.name).read()

def rss_mib():
    for line in open(f"/proc/{server.pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024

def request(method, path, body=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request(method, path, body=body, headers={"Content-Type": "application/json"})
    answer = connection.getresponse()
    data = answer.read()
    connection.close()
    return answer.status, data

points = 120_000
names = ["a", "b", "c", "d"]
assert request("PUT", "/api/charts/big", json.dumps({"mark": "line", "x": {"kind": "linear"}, "series": names, "window": points}))[0] == 201
body = json.dumps({"x": list(range(points)),
                   "series": {name: [round(1000 + math.sin((i + 7 * s) / 50) * 333.3333, 4) for i in range(points)]
                              for s, name in enumerate(names)}})
assert request("POST", "/api/charts/big/points", body)[0] == 200

def frame(text):
    payload = text.encode()
    mask = os.urandom(4)
    header = bytes([0x81])
    if len(payload) < 126:
        header += bytes([0x80 | len(payload)])
    else:
        header += bytes([0x80 | 126]) + len(payload).to_bytes(2, "big")
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))

def stalled_viewer():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # A small receive window, as a slow or stopped client's: the server's socket buffer, not
    # this one, is where the frame backs up.
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF)
    s.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: chartcast.v1\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    assert b" 101 " in head.split(b"\r\n")[0], head
    # Wide, narrow, wide, …: three wide snapshots (about 7 MB), more than the kernel's socket
    # buffer takes (about 4 MB on loopback), so libwebsockets holds the rest of one.
    for width in [1_000_000, 1_000, 1_000_000, 1_000, 1_000_000]:
        viewport = {"type": "viewport", "chart": "big", "plot": {"x": 0, "y": 0, "width": width, "height": 300}, "rtl": False}
        s.sendall(frame(json.dumps(viewport)))
        time.sleep(0.05)
    return s   # never read from again

time.sleep(1)
before = rss_mib()
viewers = [stalled_viewer() for _ in range(count)]
time.sleep(5)
during = rss_mib()
time.sleep(12)
after = rss_mib()
metrics = request("GET", "/metrics")[1].decode()
slow = " ".join(line for line in metrics.splitlines() if line.startswith("chartcast_viewers_closed_slow_total{") or line.startswith("chartcast_viewers ") or line.startswith("chartcast_bytes_out_total") or line.startswith("chartcast_frames_out_total") or line.startswith("chartcast_errors_total{code=\"bad"))
print(f"{count} stalled viewers, flags {' '.join(flags) or '(defaults)'}: RSS {before:.1f} MiB before, {during:.1f} MiB 5 s after "
      f"(+{(during - before) * 1024 / count:.0f} KiB per viewer), {after:.1f} MiB 17 s after; {slow}")
for s in viewers:
    s.close()
server.terminate()
server.wait()
os.unlink(log.name)
