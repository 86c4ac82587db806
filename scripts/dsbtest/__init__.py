# SPDX-License-Identifier: MIT
"""The Python test toolkit of dsbridged's scripts/*.py (standard library, plus selenium for
browser.py).

- daemon.py   launch dsbridged on loopback with free ports, wait until it serves, stop it
- page.py     the page side of the wire protocol over a raw WebSocket (hello, calls, acks, invokes)
- session.py  the page client of the fault, cluster and bench scripts: a page that keeps its session
              across cuts (hello/resume with token and ack, acks, replay dedupe) and checks every answer
- http.py     raw HTTP/1.1 (one-shot and kept-alive connections), JSON requests, TLS contexts
- browser.py  headless Chromium through Selenium, the browser tests' helpers, and BrowserRun:
              the one fixture of every browser test (daemon, proxy or cluster, driver, teardown)
- checks.py   recording pass/fail with a name, the summary line and the exit code
- demo.py     DSBridge's demo rows (web/demo-rows.json) and the demo page's answers
- fault_proxy.py  a loopback proxy that cuts, resets and stalls connections (seeded)

A script puts scripts/ on sys.path and imports `from dsbtest import ...`.
"""
