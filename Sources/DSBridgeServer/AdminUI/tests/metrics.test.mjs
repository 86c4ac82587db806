// SPDX-License-Identifier: MIT
// The admin page's pure parts (Sources/DSBridgeServer/AdminUI/metrics.js) under node's test runner:
//   node --test Sources/DSBridgeServer/AdminUI/tests/*.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  formatNumber, healthState, keyFigures, meanMs, parsePrometheus, ratePerSecond, sessionCallRates, total,
} from '../metrics.js';

const FIRST = `# HELP dsbridge_calls_total Page to native calls that ended, by method and outcome.
# TYPE dsbridge_calls_total counter
dsbridge_calls_total{method="echo.syn",outcome="ok"} 10
dsbridge_calls_total{method="unknown",outcome="methodNotFound"} 2
dsbridge_sessions{state="connected"} 3
dsbridge_sessions{state="in_grace"} 1
dsbridge_call_duration_seconds_count 12
dsbridge_call_duration_seconds_sum 0.024
dsbridge_memory_held_bytes 2097152
this line is not a sample
dsbridge_unterminated{a="b" 1
dsbridge_no_value{a="b"}
dsbridge_label_with_escapes{path="a \\"quoted\\" \\\\ {x} b",n="1"} 5
`;

const SECOND = FIRST
  .replace('outcome="ok"} 10', 'outcome="ok"} 40')
  .replace('_count 12', '_count 42')
  .replace('_sum 0.024', '_sum 0.084');

test('parsePrometheus reads samples with labels and skips comments and malformed lines', () => {
  const m = parsePrometheus(FIRST);
  assert.deepEqual(m.get('dsbridge_calls_total'), [
    { labels: { method: 'echo.syn', outcome: 'ok' }, value: 10 },
    { labels: { method: 'unknown', outcome: 'methodNotFound' }, value: 2 },
  ]);
  assert.equal(m.get('dsbridge_memory_held_bytes')[0].value, 2097152);
  assert.equal(m.has('this'), false);
  assert.equal(m.has('# HELP'), false);
  assert.equal(m.has('dsbridge_unterminated'), false);
  assert.equal(m.has('dsbridge_no_value'), false);
});

test('parsePrometheus keeps escaped quotes, backslashes and braces inside label values', () => {
  const [sample] = parsePrometheus(FIRST).get('dsbridge_label_with_escapes');
  assert.deepEqual(sample, { labels: { path: 'a "quoted" \\ {x} b', n: '1' }, value: 5 });
});

test('parsePrometheus reads special values', () => {
  const m = parsePrometheus('a +Inf\nb NaN\nc -1.5e3\n');
  assert.equal(m.get('a')[0].value, Infinity);
  assert.ok(Number.isNaN(m.get('b')[0].value));
  assert.equal(m.get('c')[0].value, -1500);
});

test('total sums the samples whose labels match, null when none does', () => {
  const m = parsePrometheus(FIRST);
  assert.equal(total(m, 'dsbridge_calls_total'), 12);
  assert.equal(total(m, 'dsbridge_calls_total', { outcome: 'ok' }), 10);
  assert.equal(total(m, 'dsbridge_calls_total', { outcome: 'timeout' }), null);
  assert.equal(total(m, 'dsbridge_no_such_family'), null);
});

test('ratePerSecond divides the increase by the interval; a counter that went down is 0', () => {
  assert.equal(ratePerSecond(10, 40, 2), 15);
  assert.equal(ratePerSecond(40, 10, 2), 0);
  assert.equal(ratePerSecond(null, 10, 2), null);
  assert.equal(ratePerSecond(10, 20, 0), null);
});

test('meanMs is the mean of the observations between two readings', () => {
  const before = parsePrometheus(FIRST);
  const after = parsePrometheus(SECOND);
  assert.ok(Math.abs(meanMs(before, after, 'dsbridge_call_duration_seconds') - 2) < 1e-9);
  assert.equal(meanMs(after, after, 'dsbridge_call_duration_seconds'), 0);
  assert.equal(meanMs(null, after, 'dsbridge_call_duration_seconds'), null);
  assert.equal(meanMs(before, after, 'dsbridge_absent'), null);
});

test('keyFigures gives the charts their values; rates need two readings', () => {
  const before = parsePrometheus(FIRST);
  const after = parsePrometheus(SECOND);
  const first = keyFigures(null, before, 0);
  assert.equal(first.callsPerSecond, null);
  assert.equal(first.sessionsConnected, 3);
  assert.equal(first.sessionsInGrace, 1);
  assert.equal(first.memoryHeldMB, 2);
  const next = keyFigures(before, after, 3);
  assert.equal(next.callsPerSecond, 10);
  assert.equal(next.nativeCallsPerSecond, null);
  assert.equal(next.redisUp, null);
});

test('sessionCallRates: calls per second per session; new or restarted counts have none', () => {
  const first = sessionCallRates(new Map(), [{ session: 'a', calls: 5 }, { session: 'b' }], 1000);
  assert.equal(first.rates.get('a'), null);
  assert.equal(first.rates.get('b'), null);
  const second = sessionCallRates(first.seen, [{ session: 'a', calls: 25 }, { session: 'b', calls: 3 }, { session: 'c', calls: 1 }], 3000);
  assert.equal(second.rates.get('a'), 10);
  assert.equal(second.rates.get('b'), null); // no count before
  assert.equal(second.rates.get('c'), null); // new
  const moved = sessionCallRates(second.seen, [{ session: 'a', calls: 2 }], 4000);
  assert.equal(moved.rates.get('a'), null); // counted again from 0 on another node
  assert.equal(moved.seen.has('b'), false); // gone sessions are forgotten
});

test('healthState reads /healthz for the header badge', () => {
  assert.deepEqual(healthState(200, 'ok\n'), { state: 'ok', text: 'ok' });
  assert.deepEqual(healthState(200, 'ok (redis unavailable)'), { state: 'degraded', text: 'ok (redis unavailable)' });
  assert.deepEqual(healthState(503, 'draining'), { state: 'draining', text: 'draining' });
  assert.deepEqual(healthState(0, ''), { state: 'down', text: 'unreachable' });
  assert.deepEqual(healthState(500, 'x'), { state: 'down', text: 'HTTP 500' });
});

test('formatNumber shortens large numbers and keeps small ones readable', () => {
  assert.equal(formatNumber(null), '—');
  assert.equal(formatNumber(NaN), '—');
  assert.equal(formatNumber(42), '42');
  assert.equal(formatNumber(3.14159), '3.1');
  assert.equal(formatNumber(0.0234), '0.02');
  assert.equal(formatNumber(12345), '12.3k');
  assert.equal(formatNumber(2500000), '2.5M');
});
