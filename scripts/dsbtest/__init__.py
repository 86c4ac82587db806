# SPDX-License-Identifier: MIT
"""The Python test toolkit of dsbridged's scripts/*.py (standard library, plus selenium for
browser.py).

- daemon.py   launch dsbridged on loopback with free ports, wait until it serves, stop it
- page.py     the page side of the wire protocol over a raw WebSocket (hello, calls, acks, invokes)
- http.py     raw HTTP/1.1 (one-shot and kept-alive connections), JSON requests, TLS contexts
- browser.py  headless Chromium through Selenium, and the browser tests' helpers
- checks.py   recording pass/fail with a name, the summary line and the exit code
- demo.py     DSBridge's demo rows (web/demo-rows.json) and the demo page's answers
- fault_proxy.py  a loopback proxy that cuts, resets and stalls connections (seeded)
- proxied.py  a browser test's proxy, daemon and Chromium under a watchdog, and its scenarios

A script puts scripts/ on sys.path and imports `from dsbtest import ...`.
"""
