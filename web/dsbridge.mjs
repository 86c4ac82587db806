// SPDX-License-Identifier: MIT
// dsbridged-client as an ES module: the DSBridge page API of web/dsbridge.js over dsbridged, for
// bundlers and <script type="module"> (an import map can name it "dsbridged-client").
//
//   import { dsBridge, invoke, on, configure } from 'dsbridged-client';
//   configure({ server: 'https://bridge.example.com' }); // before the first call; optional
//   const text = dsBridge.call('testSyn', 'Hello');
//   const value = await invoke('echo.asyn', { msg: 'hi' });
//
// There is one implementation, dsbridge.js; this module evaluates it (after marking, through
// dsbridge-module.mjs, that it runs as a module) and exports its API. One page has one
// session, whether the module is imported once or several times, from several bundles, or
// next to a <script src="dsbridge.js">: whichever runs first starts it, the others use it.
// Next to the original npm "dsbridge" 3.1.4, imported before or after this module, both work
// over that session (the original through window._dsbridge); `dsBridge` here is then this
// module's own object, while window.dsBridge stays the original's. Inside a real DSBridge
// WebView the exports are the app bridge's API, as with the script. Typings: dsbridge.d.ts.
import './dsbridge-module.mjs';
import './dsbridge.js';

const MODULE = Symbol.for('dsbridged.module');
const client = window[Symbol.for('dsbridged.client')];
delete window[MODULE]; // left when dsbridge.js had already been evaluated as a module before
if (typeof client !== 'function') {
  throw new Error('dsbridged-client: dsbridge.js did not start (another dsbridge.js without the module client is on this page)');
}

const api = client();

/** The DSBridge object (call, register, registerAsyn, hasNativeMethod, invoke, on, off, …). */
export const dsBridge = api.dsBridge;
export const {
  call,
  register,
  registerAsyn,
  hasNativeMethod,
  disableJavascriptDialogBlock,
  close,
  invoke,
  on,
  off,
  reconnect,
  configure
} = api;
export default dsBridge;
