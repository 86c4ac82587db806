#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A do-nothing OTLP/HTTP receiver for load tests (scripts/load-test.sh --only otel): takes
`POST /v1/traces` on 127.0.0.1, answers 200 at once and counts requests and bytes. Prints
`listening port=P` first; on SIGTERM writes {"requests": N, "bytes": B} to the JSON file given
and exits.

    scripts/otlp_sink.py --summary FILE.json [--port 0]
"""

import argparse
import http.server
import json
import signal
import sys
import threading


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--summary", required=True)
    ap.add_argument("--port", type=int, default=0)
    o = ap.parse_args()
    counts = {"requests": 0, "bytes": 0}
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            n = int(self.headers.get("Content-Length", "0"))
            self.rfile.read(n)
            with lock:
                counts["requests"] += 1
                counts["bytes"] += n
            self.send_response(200)
            self.send_header("Content-Type", self.headers.get("Content-Type") or "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", o.port), Handler)

    def stop(*_):
        with lock:
            with open(o.summary, "w") as f:
                json.dump(counts, f)
        sys.stdout.flush()
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    print("listening port=%d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
