// SPDX-License-Identifier: MIT
// The admin API as the admin page uses it (PROTOCOL.md 6). The token lives in this object
// only: never in the URL, storage or a cookie; signing out drops the object.

/** Where the page's requests go, relative to the page (served at /admin/ui/). */
export const paths = {
  sessions: '../sessions',
  session: (id) => '../sessions/' + encodeURIComponent(id),
  group: (tag) => '../groups/' + encodeURIComponent(tag),
  metrics: '../../metrics',
  nodes: '../nodes',
  nodeMetrics: (node) => '../nodes/' + encodeURIComponent(node) + '/metrics',
  healthz: '../../healthz',
};

/** A signed-in admin API client. */
export class AdminClient {
  #token;

  constructor(token) {
    this.#token = token;
  }

  /**
   * `method path` with the bearer token; resolves to {status, body} (body parsed as JSON when
   * the answer says so, else text). Network failures resolve to status 0.
   */
  async request(method, path, body) {
    const init = { method, headers: { Authorization: 'Bearer ' + this.#token }, cache: 'no-store' };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(path, init);
    } catch (error) {
      return { status: 0, body: { error: 'the daemon did not answer (' + error.message + ')' } };
    }
    const type = response.headers.get('Content-Type') || '';
    const text = await response.text();
    if (type.includes('json')) {
      try {
        return { status: response.status, body: JSON.parse(text) };
      } catch {
        return { status: response.status, body: text };
      }
    }
    return { status: response.status, body: text };
  }

  sessions() {
    return this.request('GET', paths.sessions);
  }

  recentCalls(id) {
    return this.request('GET', paths.session(id) + '/calls');
  }

  call(id, method, args, timeoutMs) {
    return this.request('POST', paths.session(id) + '/call', { method, args, timeoutMs });
  }

  callGroup(tag, method, args, timeoutMs) {
    return this.request('POST', paths.group(tag) + '/call', { method, args, timeoutMs });
  }

  metrics() {
    return this.request('GET', paths.metrics);
  }

  /** Cluster mode: the live nodes, `{nodes: [{node, self}]}` (empty on a node alone). */
  nodes() {
    return this.request('GET', paths.nodes);
  }

  /** Cluster mode: another node's /metrics, `{node, metrics}`. */
  nodeMetrics(node) {
    return this.request('GET', paths.nodeMetrics(node));
  }
}

/** /healthz needs no token: {status, body}. */
export async function health() {
  try {
    const response = await fetch(paths.healthz, { cache: 'no-store' });
    return { status: response.status, body: await response.text() };
  } catch {
    return { status: 0, body: '' };
  }
}

/**
 * The `args` of a call form: a JSON array (an empty field is []); throws an Error with a
 * message for the form otherwise.
 */
export function parseArgs(text) {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  let value;
  try {
    value = JSON.parse(trimmed);
  } catch (error) {
    throw new Error('Arguments are not JSON: ' + error.message);
  }
  if (!Array.isArray(value)) throw new Error('Arguments must be a JSON array, like [1, "two"]');
  return value;
}
