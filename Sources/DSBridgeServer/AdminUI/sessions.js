// SPDX-License-Identifier: MIT
// The admin page's pure parts about a listed session (an entry of GET /admin/sessions,
// PROTOCOL.md 6): the state its row shows. No DOM here (the node tests in tests/ load this
// module directly).

/**
 * The state of a listed session: 'away' while it has no socket (`connected: false`: its page
 * went away and the session waits for it during the grace period, whether or not it was ever
 * ready), 'ready' once its page said dsinit, else 'connected'. `ready` stays true after the
 * socket closes, so `connected` is read first.
 */
export function stateOf(session) {
  if (!session.connected) return 'away';
  if (session.ready) return 'ready';
  return 'connected';
}

/** The words the page shows for each state. */
export const STATE_LABELS = Object.freeze({ ready: 'ready', connected: 'connected, not ready', away: 'no socket' });

/** The words the page shows for a listed session's state. */
export function stateLabel(session) {
  return STATE_LABELS[stateOf(session)];
}
