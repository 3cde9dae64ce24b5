"""A hostile network camera for the tests: MJPEG over HTTP on loopback, its parts as a plan says.

    python tests/hardware/mjpeg_server.py PORT PLAN.json

PLAN.json: ``{"once": [part, ...], "loop": [part, ...], "fps": 10, "host": "127.0.0.1"}``; the parts
of ``once`` are sent first to each client, then those of ``loop`` again and again.  A part is
``{"file": "a.jpg"}`` (the file, with its Content-Length), ``{"file": "a.jpg", "length": false}``
(no Content-Length: the reader finds its end by the boundary), ``{"declared": N, "send": M}`` (a
Content-Length of N, then M bytes: a part claiming more than it sends) or ``{"junk": M}`` (M bytes
without a Content-Length).  ``GET /still.jpg`` answers the first part of ``loop`` alone, as one
``image/jpeg`` body (a snapshot camera); any other path is the stream.  ``"auth": "user:password"``
asks for Basic authentication.  Prints the port when ready.
"""

from __future__ import annotations

import base64
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

BOUNDARY = "dicetableframe"
CHUNK = b"\x00" * (1 << 20)


def _body(part: dict[str, Any]) -> bytes:
    return Path(part["file"]).read_bytes()


def make_handler(plan: dict[str, Any]) -> type[BaseHTTPRequestHandler]:
    fps = float(plan.get("fps", 10))

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, *args: Any) -> None:
            pass

        def _junk(self, n: int) -> None:
            while n > 0:
                k = min(n, len(CHUNK))
                self.wfile.write(CHUNK[:k])
                n -= k

        def _part(self, part: dict[str, Any]) -> None:
            w = self.wfile
            w.write(f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\n".encode())
            if "file" in part:
                data = _body(part)
                if part.get("length", True):
                    w.write(f"Content-Length: {len(data)}\r\n".encode())
                w.write(b"\r\n" + data + b"\r\n")
            elif "declared" in part:
                w.write(f"Content-Length: {part['declared']}\r\n\r\n".encode())
                w.write(b"\xff\xd8")
                self._junk(int(part["send"]))
                w.write(b"\r\n")
            else:
                w.write(b"\r\n\xff\xd8")
                self._junk(int(part["junk"]))
                w.write(b"\r\n")
            w.flush()

        def do_GET(self) -> None:
            if "auth" in plan:  # Basic authentication: "user:password"
                want = "Basic " + base64.b64encode(plan["auth"].encode()).decode("ascii")
                if self.headers.get("Authorization") != want:
                    self.send_response(401)
                    self.send_header("WWW-Authenticate", 'Basic realm="camera"')
                    self.end_headers()
                    return
            if self.path.startswith("/still"):
                data = _body(plan["loop"][0])
                self.send_response(200)
                self.send_header("Content-Type", "image/jpeg")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            self.send_response(200)
            self.send_header("Content-Type", f"multipart/x-mixed-replace;boundary={BOUNDARY}")
            self.end_headers()
            try:
                for part in plan.get("once", []):
                    self._part(part)
                    time.sleep(1 / fps)
                while True:
                    for part in plan["loop"]:
                        self._part(part)
                        time.sleep(1 / fps)
            except (BrokenPipeError, ConnectionResetError):
                return

    return Handler


def main() -> None:
    port, plan_file = int(sys.argv[1]), sys.argv[2]
    plan = json.loads(Path(plan_file).read_text(encoding="utf-8"))
    server = ThreadingHTTPServer((plan.get("host", "127.0.0.1"), port), make_handler(plan))
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
