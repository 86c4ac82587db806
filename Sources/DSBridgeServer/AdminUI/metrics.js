// SPDX-License-Identifier: MIT
// The admin page's pure parts: reading the Prometheus text of /metrics, turning two readings
// into rates, and the per-session call rates of the session listing. No DOM here (the node
// tests in tests/ load this module directly).

/**
 * Parses the Prometheus text exposition into a Map from metric name to its samples
 * ({labels: {name: value}, value: number}); comment lines and malformed lines are skipped.
 */
export function parsePrometheus(text) {
  const metrics = new Map();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const sample = parseSample(line);
    if (!sample) continue;
    let list = metrics.get(sample.name);
    if (!list) metrics.set(sample.name, (list = []));
    list.push({ labels: sample.labels, value: sample.value });
  }
  return metrics;
}

function parseSample(line) {
  const nameEnd = line.search(/[{\s]/);
  if (nameEnd <= 0) return null;
  const name = line.slice(0, nameEnd);
  let labels = {};
  let rest = line.slice(nameEnd);
  if (line[nameEnd] === '{') {
    const parsed = parseLabels(line, nameEnd + 1);
    if (parsed === null) return null;
    labels = parsed.labels;
    rest = line.slice(parsed.end);
  }
  const value = parseValue(rest.trim().split(/\s+/)[0]);
  return value === null ? null : { name, labels, value };
}

/**
 * Reads `key="value",...}` of `line` from `start` (just after the brace): the labels and the
 * index after the closing brace, or null when malformed. Values may hold escaped quotes and
 * backslashes, spaces and braces.
 */
function parseLabels(line, start) {
  const labels = {};
  let i = start;
  for (;;) {
    while (line[i] === ' ' || line[i] === ',') i++;
    if (i >= line.length) return null;
    if (line[i] === '}') return { labels, end: i + 1 };
    const eq = line.indexOf('=', i);
    if (eq < 0 || line[eq + 1] !== '"') return null;
    const key = line.slice(i, eq).trim();
    let j = eq + 2;
    let value = '';
    while (j < line.length && line[j] !== '"') {
      if (line[j] === '\\' && j + 1 < line.length) {
        const next = line[j + 1];
        value += next === 'n' ? '\n' : next;
        j += 2;
      } else {
        value += line[j++];
      }
    }
    if (j >= line.length || key === '') return null;
    labels[key] = value;
    i = j + 1;
  }
}

function parseValue(text) {
  if (text === undefined || text === '') return null;
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  const value = Number(text);
  return Number.isNaN(value) ? null : value;
}

/** The sum of `name`'s samples whose labels include every pair of `match` (null when none). */
export function total(metrics, name, match = {}) {
  const samples = metrics.get(name);
  if (!samples) return null;
  let sum = 0;
  let found = false;
  for (const s of samples) {
    if (Object.entries(match).every(([k, v]) => s.labels[k] === v)) {
      sum += s.value;
      found = true;
    }
  }
  return found ? sum : null;
}

/**
 * Per second between two readings of a counter taken `seconds` apart; null without both
 * readings, 0 when the counter went down (the daemon restarted).
 */
export function ratePerSecond(before, after, seconds) {
  if (before === null || after === null || !(seconds > 0)) return null;
  return after < before ? 0 : (after - before) / seconds;
}

/**
 * The key figures of the admin page's charts from two readings of /metrics `seconds` apart
 * (`before` may be null for the first reading: rates are then null).
 */
export function keyFigures(before, after, seconds) {
  const counter = (name) => ratePerSecond(before ? total(before, name) : null, total(after, name), seconds);
  return {
    sessionsConnected: total(after, 'dsbridge_sessions', { state: 'connected' }),
    sessionsInGrace: total(after, 'dsbridge_sessions', { state: 'in_grace' }),
    callsPerSecond: counter('dsbridge_calls_total'),
    nativeCallsPerSecond: counter('dsbridge_native_calls_total'),
    meanCallMs: meanMs(before, after, 'dsbridge_call_duration_seconds'),
    queuedMessages: total(after, 'dsbridge_queued_messages'),
    memoryHeldMB: scaled(total(after, 'dsbridge_memory_held_bytes'), 1 / (1024 * 1024)),
    loopLagMs: meanMs(before, after, 'dsbridge_event_loop_lag_seconds'),
    redisUp: total(after, 'dsbridge_cluster_redis_up'),
  };
}

/**
 * The mean of a histogram's observations between two readings, in milliseconds (0 when there
 * was none; null without both readings).
 */
export function meanMs(before, after, histogram) {
  if (!before) return null;
  const count = [total(before, histogram + '_count'), total(after, histogram + '_count')];
  const sum = [total(before, histogram + '_sum'), total(after, histogram + '_sum')];
  if (count.includes(null) || sum.includes(null)) return null;
  const n = count[1] - count[0];
  return n > 0 ? ((sum[1] - sum[0]) / n) * 1000 : 0;
}

function scaled(value, factor) {
  return value === null ? null : value * factor;
}

/**
 * Calls per second of each session of a listing, from its `calls` count now and at the
 * previous listing (`previous`: Map session → {calls, atMs}). Returns {rates: Map session →
 * number|null, seen: the Map to pass next time}. A session new to the listing, or whose count
 * went down (it moved to another node and started counting again), has no rate yet.
 */
export function sessionCallRates(previous, sessions, nowMs) {
  const rates = new Map();
  const seen = new Map();
  for (const s of sessions) {
    const calls = typeof s.calls === 'number' ? s.calls : null;
    const before = previous.get(s.session);
    let rate = null;
    if (calls !== null && before && before.calls !== null && calls >= before.calls && nowMs > before.atMs) {
      rate = ((calls - before.calls) * 1000) / (nowMs - before.atMs);
    }
    rates.set(s.session, rate);
    seen.set(s.session, { calls, atMs: nowMs });
  }
  return { rates, seen };
}

/** What /healthz says, for the header badge: {state: 'ok'|'degraded'|'draining'|'down', text}. */
export function healthState(status, body) {
  const text = (body || '').trim();
  if (status === 503) return { state: 'draining', text: text || 'draining' };
  if (status === 200 && text === 'ok') return { state: 'ok', text };
  if (status === 200) return { state: 'degraded', text };
  return { state: 'down', text: status ? 'HTTP ' + status : 'unreachable' };
}

/** A short human form of a number for the charts and tables ("—" for null). */
export function formatNumber(value, digits = 1) {
  if (value === null || value === undefined || Number.isNaN(value)) return '—';
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (abs >= 1e6) return (value / 1e6).toFixed(digits) + 'M';
  if (abs >= 1e4) return (value / 1e3).toFixed(digits) + 'k';
  if (Number.isInteger(value)) return String(value);
  return value.toFixed(abs < 1 ? Math.max(digits, 2) : digits);
}
