# SPDX-License-Identifier: MIT
"""`/metrics` of a daemon's admin listener, read as a Prometheus scraper would.

    text = scrape(admin_port, token)       # the exposition ("" unless 200)
    value(text, "dsbridge_memory_held_bytes")   # the first sample of a family, or None
"""

import re

from .http import http


def scrape(admin_port, token, timeout=10.0):
    """GET /metrics with the admin token; the text, or "" when the answer is not 200."""
    r = http(admin_port, "GET", "/metrics", ["Authorization: Bearer " + token, "Connection: close"], timeout=timeout)
    return r.body.decode("utf-8", "replace") if r.status == 200 else ""


def value(text, name):
    """The first sample of family `name` (any labels) as a float, or None."""
    m = re.search(r"^%s(?:\{[^}]*\})? (\S+)$" % re.escape(name), text, re.M)
    return float(m.group(1)) if m else None
