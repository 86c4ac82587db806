// SPDX-License-Identifier: MIT
// The admin page (GET /admin/ui/): sign-in, live sessions, a session's detail and calls,
// native-initiated calls into a page or a group, drain state and key metrics. Every value
// that comes from a page (origins, method names, results) is put in the DOM as text.

import { AdminClient, health, parseArgs } from './api.js';
import { LiveChart } from './chart.js';
import { formatNumber, healthState, keyFigures, parsePrometheus, sessionCallRates } from './metrics.js';
import { stateLabel, stateOf } from './sessions.js';

const REFRESH_MS = 2000;
const $ = (id) => document.getElementById(id);

let client = null;
let timer = null;
let selected = null;
let callRates = { rates: new Map(), seen: new Map() };
let lastMetrics = null;
let lastMetricsAt = 0;
let listing = [];
let charts = null;
/** The node whose metrics the charts show (cluster mode); null: this node. */
let chartNode = null;
let refreshes = 0;

function element(tag, text, className) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (className) e.className = className;
  return e;
}

function show(value) {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

// ---- Signing in and out -----------------------------------------------------------------

async function signIn(event) {
  event.preventDefault();
  const input = $('token');
  const candidate = new AdminClient(input.value);
  input.value = '';
  $('login-error').textContent = '';
  const answer = await candidate.sessions();
  if (answer.status === 401) {
    $('login-error').textContent = 'The daemon refused this token (401). Check --admin-token.';
    return;
  }
  if (answer.status !== 200) {
    $('login-error').textContent = 'The admin API answered ' + answer.status + ': ' + show(answer.body.error ?? answer.body);
    return;
  }
  client = candidate;
  $('login').hidden = true;
  $('console').hidden = false;
  $('sign-out').hidden = false;
  if (!charts) charts = makeCharts();
  showSessions(answer.body);
  await refreshNodes();
  refresh();
}

/** Cluster mode: the node selector of the charts (hidden on a node alone). */
async function refreshNodes() {
  const answer = await client.nodes();
  const select = $('node');
  const nodes = answer.status === 200 && Array.isArray(answer.body.nodes) ? answer.body.nodes : [];
  select.hidden = nodes.length < 2;
  $('charts-title').textContent = select.hidden ? 'This node' : 'Node';
  if (chartNode && !nodes.some((n) => n.node === chartNode)) {
    // The node the charts showed is gone: back to this node.
    chartNode = null;
    lastMetrics = null;
    for (const chart of Object.values(charts)) chart.clear();
  }
  if (select.hidden) return;
  const current = chartNode ?? (nodes.find((n) => n.self) || {}).node;
  select.replaceChildren(
    ...nodes.map((n) => {
      const option = element('option', n.node + (n.self ? ' (this node)' : ''));
      option.value = n.node;
      option.dataset.self = String(n.self);
      option.selected = n.node === current;
      return option;
    })
  );
}

function chooseNode() {
  const option = $('node').selectedOptions[0];
  chartNode = option && option.dataset.self !== 'true' ? option.value : null;
  lastMetrics = null;
  for (const chart of Object.values(charts)) chart.clear();
  refresh();
}

function signOut(message) {
  client = null;
  selected = null;
  chartNode = null;
  clearTimeout(timer);
  $('console').hidden = true;
  $('detail').hidden = true;
  $('sign-out').hidden = true;
  $('login').hidden = false;
  $('login-error').textContent = message || '';
  $('token').focus();
}

// ---- Polling ----------------------------------------------------------------------------

async function refresh() {
  clearTimeout(timer);
  const signedIn = client;
  if (!signedIn) return;
  const node = chartNode;
  const [sessions, metrics] = await Promise.all([signedIn.sessions(), readMetrics(signedIn, node), refreshHealth()]);
  if (client !== signedIn) return;
  if (sessions.status === 401 || metrics.status === 401) return signOut('The token stopped working (401): sign in again.');
  if (sessions.status === 200) {
    $('sessions-error').textContent = '';
    showSessions(sessions.body);
  } else {
    $('sessions-error').textContent = 'Listing sessions failed (' + sessions.status + '): ' + show(sessions.body.error ?? sessions.body);
  }
  if (node !== chartNode) {
    // The selection changed while this reading was on its way: it is not the chart's node.
  } else if (metrics.status === 200) {
    showMetrics(metrics.body, node);
  } else {
    $('charts-note').textContent = '(' + (node ? 'node ' + node + ': ' : '') + '/metrics answered ' + metrics.status + ')';
  }
  if (selected) await refreshDetail();
  // Nodes come and go: the selector is read again every tenth second or so.
  if (++refreshes % 5 === 0) await refreshNodes();
  $('refreshed').textContent = 'updated ' + new Date().toLocaleTimeString();
  timer = setTimeout(refresh, REFRESH_MS);
}

async function refreshHealth() {
  const answer = await health();
  const state = healthState(answer.status, answer.body);
  const badge = $('health');
  badge.dataset.state = state.state;
  badge.textContent = state.state === 'ok' ? 'serving' : state.text;
}

// ---- Charts -----------------------------------------------------------------------------

function makeCharts() {
  const box = $('charts');
  return {
    sessionsConnected: new LiveChart(box, 'Sessions connected'),
    callsPerSecond: new LiveChart(box, 'Calls to native', '/s'),
    meanCallMs: new LiveChart(box, 'Mean call time', 'ms'),
    nativeCallsPerSecond: new LiveChart(box, 'Calls into pages', '/s'),
    queuedMessages: new LiveChart(box, 'Queued messages'),
    memoryHeldMB: new LiveChart(box, 'Memory held', 'MiB'),
    loopLagMs: new LiveChart(box, 'Event-loop lag', 'ms'),
  };
}

/** This node's /metrics, or (cluster mode) another node's: {status, body: text}. */
async function readMetrics(signedIn, node) {
  if (!node) return signedIn.metrics();
  const answer = await signedIn.nodeMetrics(node);
  return answer.status === 200 ? { status: 200, body: String(answer.body.metrics) } : answer;
}

function showMetrics(text, node) {
  const now = performance.now();
  const reading = parsePrometheus(text);
  const figures = keyFigures(lastMetrics, reading, (now - lastMetricsAt) / 1000);
  lastMetrics = reading;
  lastMetricsAt = now;
  for (const [key, chart] of Object.entries(charts)) chart.push(figures[key]);
  const redis = figures.redisUp === null ? '' : figures.redisUp > 0 ? ', Redis reachable' : ', Redis unreachable';
  $('charts-note').textContent = '(readings of ' + (node ? node + "'s " : '') + '/metrics every 2 s' + redis + ')';
}

// ---- Sessions ---------------------------------------------------------------------------

function showSessions(list) {
  listing = Array.isArray(list) ? list : [];
  callRates = sessionCallRates(callRates.seen, listing, performance.now());
  const filter = $('filter').value.trim().toLowerCase();
  const shown = listing.filter(
    (s) => !filter || [s.session, s.node, s.origin].some((v) => typeof v === 'string' && v.toLowerCase().includes(filter)),
  );
  const body = $('sessions').tBodies[0];
  const rows = shown.map((s) => {
    const tr = document.createElement('tr');
    tr.dataset.session = s.session;
    tr.setAttribute('aria-selected', String(s.session === selected));
    tr.tabIndex = 0;
    const state = element('span', stateLabel(s), 'state');
    state.dataset.state = stateOf(s);
    const stateCell = element('td');
    stateCell.append(state);
    tr.append(
      element('td', s.session, 'mono'),
      element('td', s.node ?? '—'),
      element('td', s.origin ?? '—', 'origin'),
      stateCell,
      element('td', s.since ? new Date(s.since).toLocaleString() : '—'),
      element('td', s.queued, 'num'),
      element('td', s.calls ?? '—', 'num'),
      element('td', formatNumber(callRates.rates.get(s.session) ?? null), 'num'),
    );
    tr.addEventListener('click', () => select(s.session));
    tr.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') select(s.session);
    });
    return tr;
  });
  body.replaceChildren(...rows);
  const hidden = listing.length - shown.length;
  $('session-count').textContent = '(' + listing.length + (hidden ? ', ' + hidden + ' filtered out' : '') + ')';
  if (selected) showFacts();
}

// ---- One session ------------------------------------------------------------------------

function select(id) {
  selected = id;
  $('detail').hidden = false;
  $('detail-id').textContent = id;
  $('call-result').replaceChildren();
  $('call-result').dataset.status = '';
  $('calls').tBodies[0].replaceChildren();
  delete $('calls').dataset.session;
  for (const tr of $('sessions').tBodies[0].rows) tr.setAttribute('aria-selected', String(tr.dataset.session === id));
  showFacts();
  refreshDetail();
}

function showFacts() {
  const s = listing.find((x) => x.session === selected);
  $('detail-gone').hidden = Boolean(s);
  if (!s) return;
  const facts = [
    ['Node', s.node ?? 'this node'],
    ['Origin', s.origin ?? '—'],
    ['State', stateLabel(s)],
    ['Since', s.since ? new Date(s.since).toLocaleString() + ' (' + s.since + ')' : '—'],
    ['Queued messages', s.queued],
    ['Calls to native', s.calls ?? '—'],
  ];
  $('detail-facts').replaceChildren(...facts.flatMap(([k, v]) => [element('dt', k), element('dd', v)]));
}

async function refreshDetail() {
  const id = selected;
  const answer = await client.recentCalls(id);
  if (selected !== id || answer.status !== 200) return;
  const rows = (answer.body.calls || []).map((c) => {
    const at = new Date(c.at);
    const tr = document.createElement('tr');
    tr.append(
      element('td', at.toLocaleTimeString(undefined, { hour12: false }) + '.' + String(at.getMilliseconds()).padStart(3, '0')),
      element('td', c.method, 'mono'),
      element('td', c.outcome, c.outcome === 'ok' ? 'outcome-ok' : 'outcome-error'),
      element('td', c.micros ?? '—', 'num'),
    );
    return tr;
  });
  $('calls').tBodies[0].replaceChildren(...rows);
  $('calls').dataset.session = id;
}

// ---- Calls ------------------------------------------------------------------------------

function readCallForm(form) {
  const data = new FormData(form);
  const timeout = Number(data.get('timeout'));
  if (!Number.isInteger(timeout) || timeout < 1) throw new Error('The timeout must be a whole number of milliseconds, at least 1');
  return { method: String(data.get('method')).trim(), args: parseArgs(String(data.get('args'))), timeout, tag: data.get('tag') };
}

/** Runs `call` while the result box counts the seconds, then shows its answer. */
async function callShowing(form, box, call) {
  let request;
  try {
    request = readCallForm(form);
  } catch (error) {
    box.dataset.status = 'invalid';
    box.replaceChildren(element('span', error.message, 'error'));
    return;
  }
  const button = form.querySelector('button');
  button.disabled = true;
  const started = performance.now();
  box.dataset.status = 'pending';
  const waiting = element('span', 'Calling ' + request.method + '…', 'muted');
  box.replaceChildren(waiting);
  const ticker = setInterval(() => {
    waiting.textContent = 'Calling ' + request.method + '… ' + ((performance.now() - started) / 1000).toFixed(1) + ' s (the answer comes once the page completes)';
  }, 100);
  try {
    const answer = await call(request);
    const ms = performance.now() - started;
    box.dataset.status = String(answer.status);
    box.replaceChildren(...describe(answer, ms));
  } finally {
    clearInterval(ticker);
    button.disabled = false;
  }
}

function describe(answer, ms) {
  const head = element('div');
  head.append(element('span', 'HTTP ' + answer.status, 'status'), element('span', ' in ' + ms.toFixed(0) + ' ms', 'muted'));
  const parts = [head];
  const body = answer.body;
  if (answer.status === 401) signOut('The token stopped working (401): sign in again.');
  if (body && typeof body === 'object' && Array.isArray(body.progress) && body.progress.length) {
    parts.push(element('div', 'Progress (' + body.progress.length + '):'));
    parts.push(element('pre', body.progress.map((p) => show(p)).join('\n'), 'progress'));
  }
  if (body && typeof body === 'object' && 'data' in body) {
    parts.push(element('div', 'Result:'));
    parts.push(element('pre', show(body.data), 'data'));
  } else if (body && typeof body === 'object' && 'results' in body) {
    parts.push(element('div', body.results.length + ' session(s) answered:'));
    parts.push(element('pre', body.results.map((r) => r.session + (r.node ? ' @' + r.node : '') + ' → ' + r.status + ' ' + JSON.stringify(r.body)).join('\n'), 'data'));
  } else {
    parts.push(element('pre', show(body && body.error !== undefined ? body.error : body), 'error'));
  }
  return parts;
}

// ---- Wiring -----------------------------------------------------------------------------

$('login-form').addEventListener('submit', signIn);
$('node').addEventListener('change', chooseNode);
$('sign-out').addEventListener('click', () => signOut());
$('filter').addEventListener('input', () => showSessions(listing));
$('call-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const id = selected;
  callShowing(event.target, $('call-result'), (r) => client.call(id, r.method, r.args, r.timeout));
});
$('group-form').addEventListener('submit', (event) => {
  event.preventDefault();
  callShowing(event.target, $('group-result'), (r) => client.callGroup(String(r.tag).trim(), r.method, r.args, r.timeout));
});
refreshHealth();
$('token').focus();
