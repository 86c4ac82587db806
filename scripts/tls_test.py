#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""TLS end to end: a throwaway self-signed certificate, the daemon with --tls-cert/--tls-key,
then https:// static files and POST endpoints and a wss:// session, all verified against that
certificate. Prints one line per check and a final `N passed, M failed`."""
import argparse, base64, json, os, signal, socket, ssl, subprocess, sys, tempfile, time, urllib.request

checks = []

def check(name, ok, detail=""):
    checks.append(ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else f" — {detail}"), flush=True)

def make_cert(folder):
    cert, key = os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=60)
    return cert, key

def ws_frame(text):
    payload = text.encode()
    mask = os.urandom(4)
    head = bytes([0x81])
    n = len(payload)
    head += bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big")
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))

def ws_read(sock):
    def exact(n):
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("closed")
            data += chunk
        return data
    h = exact(2)
    n = h[1] & 0x7F
    if n == 126:
        n = int.from_bytes(exact(2), "big")
    elif n == 127:
        n = int.from_bytes(exact(8), "big")
    return h[0] & 0x0F, exact(n)

def wss_session(port, context, origin=None):
    raw = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock = context.wrap_socket(raw, server_hostname="127.0.0.1")
    key = base64.b64encode(os.urandom(16)).decode()
    req = (f"GET /dsbridge HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: dsbridge.v1\r\n")
    if origin:
        req += f"Origin: {origin}\r\n"
    sock.sendall((req + "\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        if not chunk:
            break
        head += chunk
    return sock, head.split(b"\r\n")[0].decode(errors="replace")

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--daemon", default=os.environ.get("DSBRIDGED", ".build/debug/dsbridged"))
    args = ap.parse_args()
    folder = tempfile.mkdtemp(prefix="dsbridged-tls-")
    cert, key = make_cert(folder)
    daemon = subprocess.Popen([args.daemon, "--host", "127.0.0.1", "--port", "0", "--admin-port", "0", "--web-root", "web",
                               "--demo", "--tls-cert", cert, "--tls-key", key],
                              stdout=subprocess.PIPE, stderr=open(os.path.join(folder, "daemon.log"), "w"), text=True)
    try:
        line = daemon.stdout.readline().strip()
        port = int(line.split()[1].split("=")[1])
        context = ssl.create_default_context(cafile=cert)
        with urllib.request.urlopen(f"https://127.0.0.1:{port}/index.html", context=context, timeout=5) as r:
            check("https:// serves static files with the certificate", r.status == 200 and r.headers["Content-Type"].startswith("text/html"))
        req = urllib.request.Request(f"https://127.0.0.1:{port}/dsbridge/session", data=b"", method="POST")
        with urllib.request.urlopen(req, context=context, timeout=5) as r:
            token = json.load(r)["token"]
            check("POST /dsbridge/session over https", bool(token))
        body = json.dumps({"method": "testSyn", "arg": {"data": "tls"}}).encode()
        req = urllib.request.Request(f"https://127.0.0.1:{port}/dsbridge/call", data=body, method="POST",
                                     headers={"X-DSBridge-Token": token, "Content-Type": "application/json"})
        with urllib.request.urlopen(req, context=context, timeout=5) as r:
            check("POST /dsbridge/call over https", json.load(r) == {"code": 0, "data": "tls[ syn call]"})
        # Browsers offer h2 by ALPN; our answers are HTTP/1.1, so the daemon must pick http/1.1.
        alpn = ssl.create_default_context(cafile=cert)
        alpn.set_alpn_protocols(["h2", "http/1.1"])
        with alpn.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=5), server_hostname="127.0.0.1") as s:
            check("ALPN: offered h2 and http/1.1, the daemon picks http/1.1", s.selected_alpn_protocol() == "http/1.1",
                  s.selected_alpn_protocol())
        for path, method in (("/index.html", "GET"), ("/dsbridge/session", "POST")):
            body = ["--data", ""] if method == "POST" else []
            curl = subprocess.run(["curl", "-sS", "--http2", "--cacert", cert, *body, "-o", "/dev/null",
                                   "-w", "%{http_version} %{http_code}", "--max-time", "5",
                                   f"https://127.0.0.1:{port}{path}"], capture_output=True, text=True)
            check(f"curl --http2 {method} {path} gets an HTTP/1.1 200", curl.stdout == "1.1 200",
                  (curl.stdout + " " + curl.stderr).strip())
        sock, status = wss_session(port, context, origin=f"https://127.0.0.1:{port}")
        check("wss:// upgrade from the https origin", status.startswith("HTTP/1.1 101"), status)
        sock.sendall(ws_frame(json.dumps({"t": "hello", "v": 1})))
        _, welcome = ws_read(sock)
        check("hello gets welcome over wss://", json.loads(welcome).get("t") == "welcome", welcome)
        sock.sendall(ws_frame(json.dumps({"t": "call", "id": 1, "method": "testSyn", "arg": {"data": "wss"}})))
        _, ret = ws_read(sock)
        check("a call is answered over wss://", json.loads(ret).get("data") == "wss[ syn call]", ret)
        sock.close()
        _, status = wss_session(port, context, origin=f"http://127.0.0.1:{port}")
        check("the plain-http origin is not an own origin under TLS (403)", " 403" in status, status)
        try:
            plain = socket.create_connection(("127.0.0.1", port), timeout=3)
            plain.sendall(b"GET /index.html HTTP/1.1\r\nHost: x\r\n\r\n")
            answer = plain.recv(100)
            check("plain HTTP on the TLS port is not served", not answer.startswith(b"HTTP/1.1 200"), answer[:40])
        except OSError:
            check("plain HTTP on the TLS port is not served", True)
        untrusted = ssl.create_default_context()
        try:
            urllib.request.urlopen(f"https://127.0.0.1:{port}/index.html", context=untrusted, timeout=5)
            check("a client that does not trust the certificate refuses it", False, "connected")
        except (ssl.SSLError, urllib.error.URLError):
            check("a client that does not trust the certificate refuses it", True)
    finally:
        daemon.send_signal(signal.SIGTERM)
        try:
            daemon.wait(timeout=10)
        except subprocess.TimeoutExpired:
            daemon.kill()
        check("daemon exits 0 on SIGTERM", daemon.returncode == 0, daemon.returncode)
    passed = sum(checks)
    print(f"{passed} passed, {len(checks) - passed} failed")
    return 0 if passed == len(checks) else 1

if __name__ == "__main__":
    sys.exit(main())
