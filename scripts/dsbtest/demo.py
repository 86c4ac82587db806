# SPDX-License-Identifier: MIT
"""DSBridge's demo rows (web/demo-rows.json, the one copy) and a page's side of them.

    to_native()        # JS -> native rows: {"method", "arg" (absent: none), "result", "async"}
    to_page()          # native -> JS rows: {"method", "args", "progress", "result"}
    HANDLERS           # the demo page's handlers (to_page's methods but _hasJavascriptMethod)
    JS_METHODS         # HANDLERS and demoReport: what a page of the demo sequence registers
    page_answers(method, args, registered)   # what the demo page answers, as DSBridge's demo
        # page: [(value, complete), ...], or None when it has no such handler
    answer_as_demo_page(page, cid, method, args, answers)   # a ResumingPage (session.py)
        # answers an invoke so; returns a demoReport's entry

The daemon's demo sequence (`test.nativeDemo`, Sources/DSBridgeDemo/DemoSequence.swift) makes
DEMO_STEPS calls of those handlers and reports each outcome with a demoReport invoke.
"""

import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROWS_PATH = os.path.join(ROOT, "web", "demo-rows.json")

# The daemon's demo sequence: 11 steps, each a call of a handler and a demoReport.
DEMO_STEPS = 11
DEMO_INVOKES = DEMO_STEPS * 2

_rows = None


def rows():
    global _rows
    if _rows is None:
        with open(ROWS_PATH, encoding="utf-8") as f:
            _rows = json.load(f)
    return _rows


def to_native():
    return rows()["toNative"]


def to_page():
    return rows()["toPage"]


HANDLERS = frozenset(r["method"] for r in to_page() if r["method"] != "_hasJavascriptMethod")
JS_METHODS = HANDLERS | {"demoReport"}


def page_answers(method, args, registered=JS_METHODS):
    """The demo page's answer to an invoke of `method` with `args`: progress values then the
    final one, as [(value, complete)], or None when the page registers no such handler.
    `_hasJavascriptMethod` looks the name up in `registered`."""
    if method == "_hasJavascriptMethod":
        return [(args[0] in registered, True)]
    if method == "startTimer":
        return [(v, False) for v in range(5)] + [(5, True)]
    if method in ("addValue", "syn.addValue", "asyn.addValue"):
        return [(args[0] + args[1], True)]
    if method == "append":
        return [(" ".join(args), True)]
    if method == "syn.getInfo":
        return [({"tag": "syn", "value": 8}, True)]
    if method == "asyn.getInfo":
        return [({"tag": "asyn", "value": 8}, True)]
    return None


def answer_as_demo_page(page, cid, method, args, answers, registered=JS_METHODS):
    """Answers invoke `cid` of a ResumingPage (session.py) as DSBridge's demo page does: a
    handler's values (page_answers), null to a demoReport (a step that does not say pass:true
    is a problem of the page), an error to a method it does not register. Returns the
    demoReport's entry (the step's outcome), else None."""
    demo = page_answers(method, args, registered)
    if demo is not None:
        for value, complete in demo:
            page.answer(cid, answers, value, complete)
        return None
    if method != "demoReport":
        page.answer(cid, answers, None, error="not registered")
        return None
    entry = args[0] if args and isinstance(args[0], dict) else {}
    if not entry.get("pass"):
        page.problem("wrong", "the daemon's demo step %r failed: %s" % (entry.get("label"), entry))
    page.answer(cid, answers, None)
    return entry


def _self_check():
    """page_answers agrees with every to_page row (run when the module is imported)."""
    for r in to_page():
        want = [(v, False) for v in r["progress"]] + [(r["result"], True)]
        got = page_answers(r["method"], r["args"], HANDLERS)
        if got != want:
            raise AssertionError("page_answers(%s, %s) = %r, web/demo-rows.json says %r" % (r["method"], r["args"], got, want))


_self_check()
