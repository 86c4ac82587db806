// SPDX-License-Identifier: MIT
// A tiny result table for the demo and test pages: rows with expected and actual values,
// PASS/FAIL, a log of native-initiated calls, and a summary element the browser test reads:
//   <div id="summary" data-passed="N" data-failed="M" data-done="true" data-session="ID">
// Plain ES2017, no dependencies.
(function () {
  'use strict';

  var results = { passed: 0, failed: 0 };
  var pending = [];
  var sequence = Promise.resolve();

  function show(value) {
    if (value === undefined) return 'undefined';
    try {
      var text = JSON.stringify(value);
      return text.length > 160 ? text.slice(0, 157) + '…' : text;
    } catch (e) {
      return String(value);
    }
  }

  function same(a, b) {
    return JSON.stringify(a) === JSON.stringify(b) && typeof a === typeof b;
  }

  function table(id) {
    return (id && document.getElementById(id)) || document.getElementById('results');
  }

  function cell(tr, text, className) {
    var td = document.createElement('td');
    td.textContent = text;
    if (className) td.className = className;
    tr.appendChild(td);
    return td;
  }

  /** Adds a row in the running state; returns a function that settles it. */
  function openRow(name, expected, tableId) {
    var tr = document.createElement('tr');
    tr.className = 'row';
    tr.setAttribute('data-status', 'running');
    cell(tr, name, 'name');
    cell(tr, show(expected), 'expected');
    var actualCell = cell(tr, '…', 'actual');
    var statusCell = cell(tr, 'running', 'status');
    table(tableId).appendChild(tr);
    var settled = false;
    return function settle(ok, actualText) {
      if (settled) return;
      settled = true;
      actualCell.textContent = actualText;
      statusCell.textContent = ok ? 'PASS' : 'FAIL';
      tr.setAttribute('data-status', ok ? 'pass' : 'fail');
      if (ok) results.passed++;
      else results.failed++;
    };
  }

  /** Records a value that is already known. */
  function check(name, actual, expected) {
    openRow(name, expected)(same(actual, expected), show(actual));
  }

  /**
   * A row settled later by a callback. Returns report(actual); the row fails if it is not
   * reported within timeoutMs. `accept(actual)` may replace equality.
   * The time counts from the end of the task that opened the row: no callback can run before
   * it, and a page script that makes many synchronous calls (dsbridge-style.js sends 2,000
   * queued calls over HTTP, one request each, before its socket can open) holds the thread
   * for seconds, for more than 10 s on a loaded machine.
   */
  function expectLater(name, expected, timeoutMs, accept, tableId) {
    var settle = openRow(name, expected, tableId);
    var report;
    var done = new Promise(function (resolve) {
      var timer = null;
      var start = setTimeout(function () {
        timer = setTimeout(function () {
          settle(false, 'no answer within ' + (timeoutMs || 10000) + ' ms');
          resolve();
        }, timeoutMs || 10000);
      }, 0);
      report = function (actual) {
        clearTimeout(start);
        clearTimeout(timer);
        settle(accept ? !!accept(actual) : same(actual, expected), show(actual));
        resolve();
      };
    });
    pending.push(done);
    return report;
  }

  /**
   * A row run after the previous sequential rows: fn() returns the value or a promise of it.
   * A rejection is the actual value when `expected` is {rejects: kind}.
   */
  function row(name, fn, expected, timeoutMs) {
    var done = sequence.then(function () {
      var report = expectLater(name, expected, timeoutMs, function (actual) {
        return same(actual, expected);
      });
      var result;
      try {
        result = Promise.resolve(fn());
      } catch (e) {
        result = Promise.reject(e);
      }
      return result.then(report, function (e) {
        report({ rejects: e && e.kind ? e.kind : String(e && e.message) });
      });
    });
    sequence = done;
    pending.push(done);
  }

  /** Writes the summary once every row has settled. */
  function finish(sessionOf) {
    var count = 0;
    function settleAll() {
      var n = pending.length;
      if (n === count) return Promise.resolve();
      count = n;
      return Promise.all(pending.slice()).then(settleAll);
    }
    return sequence.then(settleAll).then(function () {
      var summary = document.getElementById('summary');
      var session = sessionOf ? sessionOf() : null;
      summary.setAttribute('data-passed', String(results.passed));
      summary.setAttribute('data-failed', String(results.failed));
      if (session) summary.setAttribute('data-session', session);
      summary.setAttribute('data-done', 'true');
      summary.className = results.failed ? 'summary fail' : 'summary pass';
      summary.textContent =
        results.passed + ' passed, ' + results.failed + ' failed' + (results.failed ? '' : ' — all rows pass');
    });
  }

  /**
   * The handler to register as `demoReport`: a page that calls `test.nativeDemo` on a
   * dsbridged --demo gets DSBridge's native -> JS demo calls and each outcome through it
   * ({label, expected, got, pass, progress, expectedProgress, error?}). Each report becomes
   * a row (in #native-results when the page has it); one more row waits until `count`
   * reports have arrived.
   */
  function demoReportHandler(count, timeoutMs) {
    var received = 0;
    var all = expectLater('daemon demo sequence: ' + count + ' native → JS calls reported', count, timeoutMs || 30000,
      null, 'native-results');
    return function (entry) {
      entry = entry || {};
      var expected = { data: entry.expected, progress: entry.expectedProgress };
      var actual = entry.error ? { error: entry.error } : { data: entry.got, progress: entry.progress };
      openRow('native → JS ' + entry.label, expected, 'native-results')(entry.pass === true, show(actual));
      logNative('demo report: ' + entry.label + ' ' + (entry.pass ? 'PASS' : 'FAIL'));
      if (++received === count) all(received);
    };
  }

  /** Shows a native-initiated call the page received. */
  function logNative(text) {
    var list = document.getElementById('native-log');
    if (!list) return;
    var li = document.createElement('li');
    li.textContent = new Date().toISOString().slice(11, 23) + '  ' + text;
    list.insertBefore(li, list.firstChild);
    while (list.childNodes.length > 200) list.removeChild(list.lastChild);
  }

  window.DSTest = {
    check: check,
    expectLater: expectLater,
    row: row,
    finish: finish,
    logNative: logNative,
    demoReportHandler: demoReportHandler,
    show: show,
    same: same
  };
})();
