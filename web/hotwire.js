// SPDX-License-Identifier: MIT
// hotwire.js for dsbridged: Hotwire Native bridge components (@hotwired/hotwire-native-bridge,
// formerly @hotwired/strada) in ordinary browser pages (PROTOCOL.md 9.4), over the session
// channel of web/dsbridge.js, with Swift components on the server playing the app's part.
//
// Place it as a classic script before the app's bundle (a module bundle is deferred, so
// anywhere in the document before it works):
//
//     <script src="/hotwire.js"></script>
//
// - The library loads bridge components only when navigator.userAgent matches
//   /bridge-components: \[.+\]/, tested once when its module is evaluated. This script asks the
//   server for its registered component names (synchronously: the answer must be there before
//   the bundle runs) and appends "bridge-components: [NAMES]" to this page's
//   navigator.userAgent, as the app's web view does. No registered component: nothing is
//   appended, so no bridge component loads (the library's own rule). Loaded after the
//   library's module was evaluated, nothing can make components load: it says so in the console.
// - The adapter (what the app's injected bridge.js is) is installed with setAdapter on
//   window.HotwireNative.web and window.Strada.web, whether the library's bridge object exists
//   already or appears later (web-bridge:ready). Its platform is "web" (data-platform on this
//   script element changes it), its supportedComponents the server's names.
// - Messages {id, component, event, data} go to the server as calls of _hotwire.receive;
//   replies come back as native-initiated calls of _hotwire.reply and are handed to the
//   library's receive(message), any number per message id. Both ride the session channel
//   (resume, replay, order): a reply made while the socket is cut arrives once after the resume.
// - Inside a real Hotwire Native app (window.nativeBridge, or the user agent names bridge
//   components before this script runs) it steps aside.
//
// The channel: window._dsbridge (web/dsbridge.js). When the page did not load dsbridge.js
// before this script, this script writes dsbridge.js (channel only, from its own directory or
// data-dsbridge; data-server and data-auth passed on) into the document, followed by itself
// again, so both run before the parser reaches the bundle (a browser that refuses written
// scripts gets the channel once the document is parsed: too late for components, as it says).
// Plain ES2017, no dependencies.
(function () {
  'use strict';

  var script = document.currentScript;
  var RECEIVE_METHOD = '_hotwire.receive';
  var REPLY_METHOD = '_hotwire.reply';
  var COMPONENTS_METHOD = '_hotwire.components';
  var USER_AGENT_RULE = /bridge-components: \[.+\]/;

  function warn() {
    if (window.console && console.warn) {
      var args = Array.prototype.slice.call(arguments);
      args.unshift('[hotwire.js]');
      console.warn.apply(console, args);
    }
  }

  function attr(name) {
    return script && script.getAttribute ? script.getAttribute(name) : null;
  }

  if (window.hotwireBridge) return; // already set up (this script twice)
  if (window.nativeBridge || USER_AGENT_RULE.test(navigator.userAgent || '')) {
    // A real Hotwire Native web view: the app's adapter answers the library itself.
    window.hotwireBridge = { inApp: true, platform: null, components: [], session: null };
    return;
  }

  function findChannel() {
    var hook = window._dsbridge;
    return hook && hook.__dsbridged && typeof hook.request === 'function' ? hook : null;
  }

  function escapeAttribute(text) {
    return String(text).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  }

  /** The library's bridge objects (HotwireNative.web and the legacy Strada.web), each once. */
  function webBridges() {
    var found = [];
    [window.HotwireNative, window.Strada].forEach(function (holder) {
      var web = holder && holder.web;
      if (web && typeof web.setAdapter === 'function' && found.indexOf(web) === -1) found.push(web);
    });
    return found;
  }

  var channel = findChannel();
  var parsing = document.readyState === 'loading';
  var blocking = parsing && script && script.src && !script.async && !script.defer && !script.hasAttribute('data-hotwire-late');
  if (!channel && blocking) {
    // dsbridge.js first, then this script again: both before the parser goes on.
    var dsbridge;
    try {
      dsbridge = new URL(attr('data-dsbridge') || 'dsbridge.js', script.src).href;
    } catch (e) {
      warn('cannot tell where dsbridge.js is:', e.message);
      return;
    }
    var passed = '';
    ['data-server', 'data-auth'].forEach(function (name) {
      if (attr(name) !== null) passed += ' ' + name + '="' + escapeAttribute(attr(name)) + '"';
    });
    var again = '';
    ['data-server', 'data-auth', 'data-dsbridge', 'data-platform'].forEach(function (name) {
      if (attr(name) !== null) again += ' ' + name + '="' + escapeAttribute(attr(name)) + '"';
    });
    document.write(
      '<script src="' + escapeAttribute(dsbridge) + '" data-channel-only' + passed + '><\/script>' +
      '<script src="' + escapeAttribute(script.src) + '" data-hotwire-late' + again + '><\/script>'
    );
    // A browser may refuse scripts written into the document (Chrome does for other sites'
    // scripts on slow connections): then the channel is loaded once the document is parsed.
    document.addEventListener('DOMContentLoaded', function () {
      if (!window.hotwireBridge) setUp();
    }, { once: true });
    return;
  }
  setUp();

  /** The adapter, the user agent and the channel's handlers; the channel loaded first if needed. */
  function setUp() {
    if (!channel) channel = findChannel();
    var platform = attr('data-platform') || 'web';
    var components = [];
    var adapted = [];

    var adapter = {
      get platform() {
        return platform;
      },
      get supportedComponents() {
        return components.slice();
      },
      supportsComponent: function (component) {
        return components.indexOf(component) !== -1;
      },
      /** A message from the library: to the server's component of that name. */
      receive: function (message) {
        if (!channel) return;
        channel.request(RECEIVE_METHOD, message).catch(function (error) {
          warn('message ' + message.id + ' to component "' + message.component + '" (' + message.event + ') failed:',
            error.message);
        });
      }
    };

    /** Installs the adapter on every bridge object of the library not adapted yet. */
    function install() {
      webBridges().forEach(function (web) {
        if (adapted.indexOf(web) !== -1) return;
        adapted.push(web);
        web.setAdapter(adapter);
      });
    }

    /** A reply from a server component: to the library, which runs the message's callback. */
    function reply(args) {
      var message = args && args[0];
      if (!message || typeof message !== 'object' || typeof message.id !== 'string') {
        throw new Error('_hotwire.reply needs [{id, component, event, data}]');
      }
      webBridges().forEach(function (web) {
        web.receive(message);
      });
      return null;
    }

    /** The server's component names, asked synchronously ([] when it cannot answer). */
    function askComponents() {
      var text = channel.call(COMPONENTS_METHOD, '{"data":null}');
      var answer = null;
      try {
        answer = JSON.parse(text || 'null');
      } catch (e) {
        answer = null;
      }
      if (!answer || answer.code !== 0 || !Array.isArray(answer.data)) {
        warn('the server did not name its bridge components; none will load (' + text + ')');
        return [];
      }
      return answer.data.filter(function (name) {
        return typeof name === 'string';
      });
    }

    function start(found) {
      channel = found;
      components = askComponents();
      // The library's bridge object exists and the document is parsed: its module has run.
      var tooLate = webBridges().length > 0 && document.readyState !== 'loading';
      if (components.length > 0) {
        var userAgent = (navigator.userAgent || '') + ' bridge-components: [' + components.join(' ') + ']';
        Object.defineProperty(navigator, 'userAgent', { value: userAgent, configurable: true });
        if (tooLate) {
          warn('hotwire.js ran after the bridge library was evaluated: its bridge components will not load ' +
            '(BridgeComponent.shouldLoad reads the user agent once). Place <script src=".../hotwire.js"> ' +
            'before the app\'s bundle.');
        }
      }
      channel.serve(REPLY_METHOD, reply);
      install();
      document.addEventListener('web-bridge:ready', install);
      if (document.readyState === 'loading') {
        document.addEventListener('DOMContentLoaded', function () {
          channel.ready();
        }, { once: true });
      } else {
        channel.ready();
      }
    }

    var api = { inApp: false };
    Object.defineProperty(api, 'platform', { get: function () { return platform; }, enumerable: true });
    Object.defineProperty(api, 'components', { get: function () { return components.slice(); }, enumerable: true });
    Object.defineProperty(api, 'session', {
      get: function () {
        return channel ? channel.session : null;
      },
      enumerable: true
    });
    window.hotwireBridge = api;

    if (channel) {
      start(channel);
      return;
    }
    // Not placed before the bundle (async, injected, or after the document was parsed): the
    // channel is loaded now, and components load only if the library has not been evaluated yet.
    var tag = document.createElement('script');
    try {
      tag.src = new URL(attr('data-dsbridge') || 'dsbridge.js', (script && script.src) || window.location.href).href;
    } catch (e) {
      warn('cannot tell where dsbridge.js is:', e.message);
      return;
    }
    tag.setAttribute('data-channel-only', '');
    ['data-server', 'data-auth'].forEach(function (name) {
      if (attr(name) !== null) tag.setAttribute(name, attr(name));
    });
    tag.onload = function () {
      var found = findChannel();
      if (found) start(found);
      else warn('dsbridge.js from ' + tag.src + ' did not start a dsbridged channel');
    };
    tag.onerror = function () {
      warn('cannot load ' + tag.src + ': bridge components need it');
    };
    (document.head || document.documentElement).appendChild(tag);
  }
})();
