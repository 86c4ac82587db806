// SPDX-License-Identifier: MIT
// The admin page's session states (Sources/DSBridgeServer/AdminUI/sessions.js) under node's test runner (the
// browser test, scripts/admin_ui_browser_test.py, reads them from the page against a real
// daemon):   node --test Sources/DSBridgeServer/AdminUI/tests/*.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { STATE_LABELS, stateLabel, stateOf } from '../sessions.js';

test('a session with a socket whose page said dsinit is ready', () => {
  assert.equal(stateOf({ connected: true, ready: true }), 'ready');
  assert.equal(stateLabel({ connected: true, ready: true }), 'ready');
});

test('a session with a socket whose page has not said dsinit is connected, not ready', () => {
  assert.equal(stateOf({ connected: true, ready: false }), 'connected');
  assert.equal(stateLabel({ connected: true, ready: false }), 'connected, not ready');
});

test('a session whose page went away shows no socket, even though it was ready', () => {
  // The API keeps "ready": true after the socket closes (the session waits for its page).
  assert.equal(stateOf({ connected: false, ready: true }), 'away');
  assert.equal(stateLabel({ connected: false, ready: true }), 'no socket');
  assert.equal(stateOf({ connected: false, ready: false }), 'away');
});

test('an entry that does not say it is connected shows no socket', () => {
  assert.equal(stateOf({ session: 'abc' }), 'away');
});

test('every state has its words', () => {
  assert.deepEqual(Object.keys(STATE_LABELS).sort(), ['away', 'connected', 'ready']);
  assert.ok(Object.isFrozen(STATE_LABELS));
});
