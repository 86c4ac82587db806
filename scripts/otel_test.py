#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Tracing end to end (issue 17, point 2): dsbridged with --otel-endpoint exports a span per
call over OTLP/HTTP to a receiver written here (no collector needed).

The receiver takes `POST /v1/traces` on loopback and keeps every span. The test opens a page
session over a raw WebSocket and makes: a sync method call carrying a W3C `traceparent`, a
call of a method no interface has, an async call with progress, a sync HTTP call with a
`traceparent` header, and a native → page call through the admin API that the page
answers. It then checks each span: name, kind, trace and parent ids from the page's context,
attributes (session, method, outcome, transport, sizes), error status, times, and the
resource's service.name; the same again with OTLP/HTTP protobuf (decoded with
opentelemetry-proto when it is installed, else checked for its content type and size);
that a span of a call running at SIGTERM still leaves with the drain; that without
--otel-endpoint nothing is sent; and that a bad --otel-protocol or --otel-endpoint stops the
daemon at start with a message naming the flag.

    scripts/otel_test.py [--daemon .build/debug/dsbridged]
"""

import argparse
import base64
import http.server
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dsbtest.checks import Checks  # noqa: E402
from dsbtest.daemon import Daemon, binary_path, demo_args, hard_limit  # noqa: E402
from dsbtest.page import WS, return_value  # noqa: E402

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID = "00f067aa0ba902b7"
TRACEPARENT = "00-%s-%s-01" % (TRACE_ID, PARENT_ID)
HTTP_TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
HTTP_PARENT_ID = "b7ad6b7169203331"
HTTP_TRACEPARENT = "00-%s-%s-01" % (HTTP_TRACE_ID, HTTP_PARENT_ID)
ADMIN_TRACE_ID = "11112222333344445555666677778888"
ADMIN_PARENT_ID = "aaaabbbbccccdddd"
ADMIN_TRACEPARENT = "00-%s-%s-01" % (ADMIN_TRACE_ID, ADMIN_PARENT_ID)
KINDS = {1: "internal", 2: "server", 3: "client", "SPAN_KIND_SERVER": "server", "SPAN_KIND_CLIENT": "client",
         "SPAN_KIND_INTERNAL": "internal"}


class Receiver:
    """An OTLP/HTTP traces endpoint on loopback: keeps each request's content type and body."""

    def __init__(self):
        self.requests = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with receiver.lock:
                    receiver.requests.append((self.path, self.headers.get("Content-Type", ""), body))
                reply = b"{}" if "json" in (self.headers.get("Content-Type") or "") else b""
                self.send_response(200)
                self.send_header("Content-Type", self.headers.get("Content-Type") or "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def taken(self):
        with self.lock:
            got, self.requests = self.requests, []
        return got

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def hex_id(value):
    """OTLP/JSON ids are hex; a protobuf JSON mapping would give base64: both read as hex."""
    if isinstance(value, str) and all(c in "0123456789abcdef" for c in value.lower()) and len(value) in (16, 32):
        return value.lower()
    try:
        return base64.b64decode(value).hex()
    except Exception:  # noqa: BLE001 - shown in the check's detail
        return repr(value)


def attribute_value(v):
    for key in ("stringValue", "boolValue", "intValue", "doubleValue"):
        if key in v:
            return int(v[key]) if key == "intValue" else v[key]
    return v


def spans_of_json(body):
    """(service.name, [span dicts with plain values]) of an OTLP/JSON request."""
    doc = json.loads(body)
    out, service = [], None
    for rs in doc.get("resourceSpans", []):
        resource = {a["key"]: attribute_value(a["value"]) for a in rs.get("resource", {}).get("attributes", [])}
        if "service.name" in resource:
            service = (resource["service.name"], resource.get("service.instance.id"))
        for ss in rs.get("scopeSpans", []):
            for s in ss.get("spans", []):
                out.append({
                    "name": s.get("name"), "kind": KINDS.get(s.get("kind"), s.get("kind")),
                    "traceId": hex_id(s.get("traceId", "")), "spanId": hex_id(s.get("spanId", "")),
                    "parentSpanId": hex_id(s["parentSpanId"]) if s.get("parentSpanId") else None,
                    "start": int(s.get("startTimeUnixNano", 0)), "end": int(s.get("endTimeUnixNano", 0)),
                    "attributes": {a["key"]: attribute_value(a["value"]) for a in s.get("attributes", [])},
                    "status": s.get("status", {}),
                })
    return service, out


def spans_of_protobuf(body):
    """The same from OTLP/protobuf, or None when opentelemetry-proto is not installed."""
    try:
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
        from google.protobuf.json_format import MessageToJson
    except ImportError:
        return None
    request = trace_service_pb2.ExportTraceServiceRequest()
    request.ParseFromString(body)
    return spans_of_json(MessageToJson(request))


def wait_spans(receiver, count, timeout=10.0, decode=lambda ct, b: spans_of_json(b)):
    """Spans received until at least `count` arrived (or the timeout): (services, spans, requests)."""
    services, spans, requests = set(), [], []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for path, ctype, body in receiver.taken():
            requests.append((path, ctype, len(body)))
            decoded = decode(ctype, body)
            if decoded:
                services.add(decoded[0])
                spans += decoded[1]
        if len(spans) >= count:
            break
        time.sleep(0.05)
    return services, spans, requests


def sync_http(port, token, method, data, traceparent=None):
    body = json.dumps({"method": method, "arg": json.dumps({"data": data})}).encode()
    headers = {"Content-Type": "application/json", "X-DSBridge-Token": token}
    if traceparent:
        headers["traceparent"] = traceparent
    req = urllib.request.Request("http://127.0.0.1:%d/dsbridge/call" % port, data=body, method="POST", headers=headers)
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.status, json.loads(r.read())


def start(binary, receiver, protocol, log_name, extra=()):
    env = dict(os.environ, OTEL_BSP_SCHEDULE_DELAY="100")
    args = demo_args(extra=["--otel-endpoint", "http://127.0.0.1:%d" % receiver.port, "--otel-protocol", protocol,
                            "--drain-ms", "5000", "--node-id", "otel-test-node", *extra])
    return Daemon(binary, args, log_path="/tmp/dsbridged-otel-%s.log" % log_name, name="otel", env=env)


def page_calls(daemon, checks):
    """The page's calls of the scenario; returns the session id."""
    ws = WS(daemon.port)
    welcome = ws.session()
    session = welcome["session"]
    ws.call(1, "_dsb.dsinit", None)
    ws.expect_ret(1)
    ws.call(2, "echo.syn", {"x": 1}, traceparent=TRACEPARENT)
    m = ws.expect_ret(2)
    checks.check(m is not None and m.get("code") == 0, "a call with a traceparent runs as usual", m)
    ws.call(3, "<no such method>", 1, traceparent="not-a-traceparent")
    m = ws.expect_ret(3)
    checks.check(m is not None and m.get("code") == -1, "an unknown method with an invalid traceparent: its error", m)
    ws.call(4, "callProgress", None, stub="cb4")
    got_final = ws.next_message(20, lambda m: isinstance(m, dict) and m.get("t") == "cb" and m.get("stub") == "cb4"
                                and m.get("complete") is not False)
    checks.check(got_final is not None, "the async call's final completion reached the page", got_final)
    status, body = sync_http(daemon.port, welcome["token"], "echo.syn", "h", traceparent=HTTP_TRACEPARENT)
    checks.check(status == 200 and body.get("code") == 0, "a sync HTTP call with a traceparent header runs", (status, body))

    def answer():
        inv = ws.next_message(10, lambda m: isinstance(m, dict) and m.get("t") == "invoke")
        if inv:
            ws.call(5, "_dsb.returnValue", return_value(inv["callbackId"], 7))
    t = threading.Thread(target=answer, daemon=True)
    t.start()
    req = urllib.request.Request(
        "http://127.0.0.1:%d/admin/sessions/%s/call" % (daemon.admin_port, session), method="POST",
        data=json.dumps({"method": "addValue", "args": [3, 4], "timeoutMs": 10000}).encode(),
        headers={"Authorization": "Bearer %s" % daemon.admin_token, "Content-Type": "application/json",
                 "traceparent": ADMIN_TRACEPARENT})
    with urllib.request.urlopen(req, timeout=15) as r:
        status, body = r.status, json.loads(r.read())
    t.join(5)
    checks.check(status == 200 and body.get("data") == 7, "an admin call into the page is answered", (status, body))
    return ws, session


def check_spans(checks, label, services, spans, session, started_ns):
    by_name = {}
    for s in spans:
        by_name.setdefault(s["name"], []).append(s)
    checks.check(services == {("dsbridged", "otel-test-node")},
                 "%s: the resource names the service dsbridged and the node (--node-id)" % label, services)
    echo = [s for s in by_name.get("call echo.syn", []) if s["attributes"].get("dsbridge.transport") == "socket"]
    s = echo[0] if echo else {}
    a = s.get("attributes", {})
    checks.check(
        bool(s) and s["kind"] == "server" and s["traceId"] == TRACE_ID and s["parentSpanId"] == PARENT_ID
        and a.get("rpc.system") == "dsbridge" and a.get("rpc.method") == "echo.syn" and a.get("dsbridge.session") == session
        and a.get("dsbridge.outcome") == "ok" and a.get("dsbridge.async") is False
        and a.get("dsbridge.request.bytes") == len('{"data":{"x":1}}') and a.get("dsbridge.response.bytes") == len('{"x":1}')
        and not s["status"].get("code"),
        "%s: the socket call's span continues the page's trace (server, parent = the page's span, attributes)" % label, s)
    checks.check(bool(s) and started_ns <= s["start"] <= s["end"] <= time.time_ns(),
                 "%s: its start and end are wall-clock times of the call" % label, s and (s["start"], s["end"]))
    unknown = by_name.get("call unknown", [{}])[0]
    checks.check(
        unknown.get("attributes", {}).get("dsbridge.method.requested") == "<no such method>"
        and unknown.get("attributes", {}).get("dsbridge.outcome") == "methodNotFound"
        and unknown.get("status", {}).get("code") in (2, "STATUS_CODE_ERROR") and unknown.get("parentSpanId") is None
        and unknown.get("traceId") != TRACE_ID,
        "%s: an unknown method's span is named 'call unknown', status error, a new trace (invalid traceparent ignored)"
        % label, unknown)
    progress = by_name.get("call callProgress", [{}])[0]
    pa = progress.get("attributes", {})
    checks.check(pa.get("dsbridge.async") is True and pa.get("dsbridge.outcome") == "ok"
                 and progress["end"] - progress["start"] > 1_000_000,
                 "%s: the async call's span lasts until its final completion" % label,
                 progress and (pa, progress["end"] - progress["start"]))
    over_http = [s for s in by_name.get("call echo.syn", []) if s["attributes"].get("dsbridge.transport") == "http"]
    h = over_http[0] if over_http else {}
    checks.check(bool(h) and h["traceId"] == HTTP_TRACE_ID and h["parentSpanId"] == HTTP_PARENT_ID,
                 "%s: the sync HTTP call's span continues the traceparent header's trace" % label, h)
    inv = by_name.get("invoke addValue", [{}])[0]
    checks.check(inv.get("kind") == "client" and inv.get("attributes", {}).get("dsbridge.outcome") == "completed"
                 and inv.get("attributes", {}).get("dsbridge.session") == session
                 and inv.get("attributes", {}).get("dsbridge.request.bytes") == len("[3,4]")
                 and inv.get("attributes", {}).get("dsbridge.response.bytes") == 1
                 and inv.get("traceId") == ADMIN_TRACE_ID and inv.get("parentSpanId") == ADMIN_PARENT_ID,
                 "%s: the native call's span: invoke addValue, client, completed, child of the admin call's traceparent"
                 % label, inv)


def scenario(binary, checks):
    receiver = Receiver()
    try:
        # OTLP/HTTP JSON: every span checked.
        started_ns = time.time_ns()
        daemon = start(binary, receiver, "http/json", "json")
        try:
            ws, session = page_calls(daemon, checks)
            services, spans, requests = wait_spans(receiver, 7)
            checks.check(requests and all(p == "/v1/traces" and "json" in ct for p, ct, _ in requests),
                         "spans go to POST /v1/traces as OTLP/HTTP JSON", requests)
            checks.check(len(spans) >= 7, "every call has its span (%d)" % len(spans), [s["name"] for s in spans])
            check_spans(checks, "json", services, spans, session, started_ns)
            # A call still running when the daemon drains: its span leaves before the exit.
            ws.call(6, "test.sleepSyn", 1500)
            time.sleep(0.3)
            code = daemon.stop(timeout=15)
            _, spans, _ = wait_spans(receiver, 1, timeout=3)
            names = [s["name"] for s in spans]
            checks.check(code == 0 and "call test.sleepSyn" in names,
                         "a call running at SIGTERM finishes in the drain and its span is exported before exit",
                         (code, names))
            ws.close()
        finally:
            daemon.stop()

        # OTLP/HTTP protobuf (the default encoding).
        daemon = start(binary, receiver, "http/protobuf", "protobuf")
        try:
            started_ns = time.time_ns()
            ws, session = page_calls(daemon, checks)
            decoded = spans_of_protobuf(b"") is not None
            services, spans, requests = wait_spans(
                receiver, 7 if decoded else 1, decode=lambda ct, b: spans_of_protobuf(b) if decoded else None)
            checks.check(requests and all(p == "/v1/traces" and ct == "application/x-protobuf" and n > 100
                                          for p, ct, n in requests),
                         "with --otel-protocol http/protobuf spans go as application/x-protobuf", requests)
            if decoded:
                check_spans(checks, "protobuf", services, spans, session, started_ns)
            else:
                checks.note("opentelemetry-proto is not installed: protobuf bodies not decoded")
            ws.close()
        finally:
            daemon.stop()

        # Off: no --otel-endpoint, nothing is sent.
        daemon = Daemon(binary, demo_args(), name="otel-off")
        try:
            receiver.taken()
            ws = WS(daemon.port)
            ws.session()
            ws.call(1, "echo.syn", 1, traceparent=TRACEPARENT)
            m = ws.expect_ret(1)
            time.sleep(0.5)
            checks.check(m is not None and m.get("code") == 0 and receiver.taken() == [],
                         "without --otel-endpoint calls run and nothing is exported", m)
            ws.close()
        finally:
            daemon.stop()
    finally:
        receiver.stop()

    # Bad values stop the daemon at start, naming the flag.
    for flag, value, want in [("--otel-protocol", "grpc", "--otel-protocol grpc must be http/protobuf or http/json"),
                              ("--otel-endpoint", "localhost:4318", "--otel-endpoint localhost:4318 must look like")]:
        extra = [flag, value] if flag == "--otel-endpoint" else ["--otel-endpoint", "http://127.0.0.1:1", flag, value]
        p = subprocess.run([binary] + demo_args(extra=extra), capture_output=True, text=True, timeout=20)
        checks.check(p.returncode != 0 and want in p.stderr, "%s %s is refused at start" % (flag, value),
                     (p.returncode, p.stderr.strip()[-200:]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--daemon", default=None)
    o = ap.parse_args()
    checks = Checks()
    hard_limit(180, lambda: None)
    try:
        scenario(binary_path(o.daemon), checks)
    except Exception as e:  # noqa: BLE001 - any failure of the run is a test failure
        checks.check(False, "test aborted: %s: %s" % (type(e).__name__, e))
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())
