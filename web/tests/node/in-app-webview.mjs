// SPDX-License-Identifier: MIT
// Makes fake-browser.mjs's window a DSBridge iOS / DSBridge-Swift WebView (import it after
// fake-browser.mjs, before the libraries): window._dswk is set and prompt() is the app's
// bridge, answering testSyn and recording every call in app.calls. An async call's callback
// is called by app.complete(stub, value).
export const app = {
  /** [method, argument object] of each prompt("_dsbridge=" + method, argJSON). */
  calls: [],
  complete(stub, value) {
    window[stub](value);
  }
};

window._dswk = true;
window.prompt = (text, argJSON) => {
  const method = text.replace(/^_dsbridge=/, '');
  const arg = JSON.parse(argJSON);
  app.calls.push([method, arg]);
  if (method === 'testSyn') return JSON.stringify({ code: 0, data: arg.data + '[ syn call]' });
  return JSON.stringify({ code: 0, data: '' });
};
