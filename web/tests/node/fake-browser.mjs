// SPDX-License-Identifier: MIT
// A minimal browser for node's test runner, installed when this module is evaluated (import it
// before dsbridge.mjs): window (globalThis), document, navigator, location, a synchronous
// XMLHttpRequest answered by page.answer, and a WebSocket class the test drives (open,
// receive, serverClose) while it records what the page sends. Console warnings and errors of
// the page are collected in page.console. Timers the page sets do not keep node running.
// No dependencies.

export const page = {
  /** Every FakeWebSocket made, in order. */
  sockets: [],
  /** Every XMLHttpRequest sent: {method, url, headers (lower-case names), body}. */
  requests: [],
  /** The server's answer to a request: {status, json} or {status, text}. */
  answer: () => ({ status: 404, text: 'not found' }),
  /** [level, text] of each console.warn / console.error. */
  console: []
};

export class FakeWebSocket {
  constructor(url, protocol) {
    this.url = url;
    this.protocol = protocol;
    this.readyState = 0;
    this.sent = [];
    this.closedBy = null;
    page.sockets.push(this);
  }

  send(text) {
    if (this.readyState !== 1) throw new Error('send() on a socket that is not open');
    this.sent.push(text);
  }

  close(code, reason) {
    this.closedBy = { code, reason };
    this.readyState = 3;
  }

  /** The server accepted the upgrade. */
  open() {
    this.readyState = 1;
    if (this.onopen) this.onopen({});
  }

  /** A frame from the server: a message object, an array of them (a batch), or text. */
  receive(value) {
    if (this.onmessage) this.onmessage({ data: typeof value === 'string' ? value : JSON.stringify(value) });
  }

  /** The server closed the socket. */
  serverClose(code, reason) {
    this.readyState = 3;
    if (this.onclose) this.onclose({ code, reason: reason || '' });
  }

  /** Every message sent so far, batches taken apart. */
  messages() {
    return this.sent.flatMap((text) => {
      const value = JSON.parse(text);
      return Array.isArray(value) ? value : [value];
    });
  }
}
FakeWebSocket.CONNECTING = 0;
FakeWebSocket.OPEN = 1;
FakeWebSocket.CLOSING = 2;
FakeWebSocket.CLOSED = 3;

class FakeXMLHttpRequest {
  open(method, url, async) {
    if (async !== false) throw new Error('only synchronous requests are faked');
    this.request = { method, url, headers: {}, body: null };
  }

  setRequestHeader(name, value) {
    this.request.headers[name.toLowerCase()] = value;
  }

  send(body) {
    this.request.body = body === undefined ? null : body;
    page.requests.push(this.request);
    const answer = page.answer(this.request) || { status: 404, text: '' };
    this.status = answer.status;
    this.responseText = answer.json !== undefined ? JSON.stringify(answer.json) : answer.text || '';
  }
}

function define(name, value) {
  Object.defineProperty(globalThis, name, { value, writable: true, configurable: true });
}

define('window', globalThis);
define('navigator', { userAgent: 'fake-browser (node --test)' });
define('location', { href: 'http://page.test/app/index.html', protocol: 'http:', host: 'page.test' });
define('document', {
  currentScript: null,
  readyState: 'complete',
  addEventListener() {},
  removeEventListener() {}
});
define('XMLHttpRequest', FakeXMLHttpRequest);
define('WebSocket', FakeWebSocket);

// The page's timers (silence 41 s, reconnect backoff, acks) must not hold the test process.
const realSetTimeout = globalThis.setTimeout;
define('setTimeout', function (fn, ms, ...args) {
  const timer = realSetTimeout(fn, ms, ...args);
  if (timer && timer.unref) timer.unref();
  return timer;
});

for (const level of ['warn', 'error']) {
  console[level] = (...args) => page.console.push([level, args.map(String).join(' ')]);
}

/** Waits `ms` on a timer that keeps node running. */
export function sleep(ms) {
  return new Promise((resolve) => realSetTimeout(resolve, ms));
}

/** Lets queued microtasks run (the page batches what it sends per microtask). */
export function flush() {
  return sleep(0);
}

/**
 * A server for page.answer with a few of dsbridged --demo's methods over HTTP: POST
 * /dsbridge/session makes session `s-http`; POST /dsbridge/call answers testSyn, echo.syn,
 * _dsb.hasNativeMethod (testSyn, testAsyn, echo.*), _dsb.closePage and the other _dsb methods,
 * and methodNotFound for the rest. `origin` is the server's; other origins get 404.
 */
export function demoServer(origin) {
  const native = new Set(['testSyn', 'testAsyn', 'echo.syn', 'echo.asyn', 'callProgress']);
  return (request) => {
    if (request.method !== 'POST' || !request.url.startsWith(origin + '/')) return { status: 404, text: 'not found' };
    const path = request.url.slice(origin.length);
    if (path === '/dsbridge/session') return { status: 200, json: { session: 's-http', token: 't-http' } };
    if (path !== '/dsbridge/call') return { status: 404, text: 'not found' };
    const { method, arg } = JSON.parse(request.body);
    const data = arg ? arg.data : null;
    switch (method) {
      case 'testSyn':
        return { status: 200, json: { code: 0, data: data + '[ syn call]' } };
      case 'echo.syn':
        return { status: 200, json: { code: 0, data } };
      case '_dsb.hasNativeMethod':
        return { status: 200, json: { code: 0, data: native.has(data.name) } };
      case '_dsb.dsinit':
      case '_dsb.closePage':
      case '_dsb.returnValue':
      case '_dsb.disableJavascriptDialogBlock':
        return { status: 200, json: { code: 0, data: '' } };
      default:
        return {
          status: 200,
          json: { code: -1, data: '', error: { kind: 'methodNotFound', message: 'no method ' + method } }
        };
    }
  };
}

/**
 * The server side of one socket: welcome(), and answers to the calls the page sent, each
 * message with the next seq.
 */
export class FakeSession {
  constructor(ws, session = 's1', token = 'tok1') {
    this.ws = ws;
    this.session = session;
    this.token = token;
    this.seq = 0;
    this.seen = 0; // messages of ws already returned by newMessages()
  }

  welcome(extra = {}) {
    this.ws.receive({ t: 'welcome', session: this.session, token: this.token, lastCall: 0, resumed: false, heartbeat: 20000, ...extra });
  }

  /** Messages the page sent since the last newMessages(). */
  newMessages() {
    const all = this.ws.messages();
    const fresh = all.slice(this.seen);
    this.seen = all.length;
    return fresh;
  }

  /** The calls among newMessages(), or only those of `method`. */
  calls(method) {
    const calls = this.newMessages().filter((m) => m.t === 'call');
    return method === undefined ? calls : calls.filter((c) => c.method === method);
  }

  ret(call, data = null, code = 0) {
    return { t: 'ret', seq: ++this.seq, id: call.id, code, data };
  }

  cb(call, data, complete = true) {
    return { t: 'cb', seq: ++this.seq, stub: call.arg._dscbstub, data, complete };
  }

  invoke(callbackId, method, args) {
    return { t: 'invoke', seq: ++this.seq, callbackId, method, args };
  }

  /** Sends the messages as one frame (a batch when there are several). */
  send(...messages) {
    this.ws.receive(messages.length === 1 ? messages[0] : messages);
  }
}
