// SPDX-License-Identifier: MIT
// DSBridge's demo page (test.html / js-call-native.html / native-call-js.html), written in the
// same style, with each result checked. The same file runs on top of the original
// dsbridge.js 3.1.4 in original-hook.html: it uses only the 3.1.4 API.
var check = DSTest.check;
var later = DSTest.expectLater;
var tick = Number(new URLSearchParams(location.search).get('tick')) || 1000;

// ---- JS calls native ---------------------------------------------------------------------

// Synchronous calls: the value is returned inline.
var str = dsBridge.call("testSyn", "Hello");
check('var str = dsBridge.call("testSyn", "Hello")', str, "Hello[ syn call]");

str = dsBridge.call("swift.testSyn", "hello");
check('dsBridge.call("swift.testSyn", "hello")', str, "hello[Swift sync call:test]");

str = dsBridge.call("testNoArgSyn");
check('dsBridge.call("testNoArgSyn")', str, "testNoArgSyn called [ syn call]");

var echo = dsBridge.call("echo.syn", {msg: " I am echoSyn call", tag: 1});
check('dsBridge.call("echo.syn", {msg, tag:1})', echo, {msg: " I am echoSyn call", tag: 1});

check('dsBridge.call("testNever", {msg: "testSyn"})', dsBridge.call("testNever", {msg: "testSyn"}), "");

check("dsBridge.hasNativeMethod('testSyn')", dsBridge.hasNativeMethod('testSyn'), true);
check("dsBridge.hasNativeMethod('xx')", dsBridge.hasNativeMethod('xx'), false);
check("dsBridge.hasNativeMethod('echo.asyn', 'asyn')", dsBridge.hasNativeMethod('echo.asyn', 'asyn'), true);
check("dsBridge.hasNativeMethod('_dsb.closePage')", dsBridge.hasNativeMethod('_dsb.closePage'), true);

dsBridge.disableJavascriptDialogBlock(true);
check("dsBridge.disableJavascriptDialogBlock(true) does not throw", true, true);

// Asynchronous calls: the value arrives in the callback.
var ret = dsBridge.call("testAsyn", "hello", later('dsBridge.call("testAsyn", "hello", cb)', "hello [ asyn call]"));
check('dsBridge.call("testAsyn", …, cb) returns ""', ret, "");

dsBridge.call("swift.testAsyn", "hello", later('dsBridge.call("swift.testAsyn", "hello", cb)', "hello[Swift async call:test]"));

dsBridge.call("testNoArgAsyn", later('dsBridge.call("testNoArgAsyn", cb)', "testNoArgAsyn called [ asyn call]"));

dsBridge.call("echo.asyn", {msg: " I am echoAsyn call", tag: 2},
  later('dsBridge.call("echo.asyn", {msg, tag:2}, cb)', {msg: " I am echoAsyn call", tag: 2}));

(function () {
  var seen = [];
  var report = later('dsBridge.call("callProgress", cb): 10 … 0', [10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0], 20000);
  dsBridge.call("callProgress", function (value) {
    seen.push(value);
    if (value === 0) setTimeout(function () { report(seen); }, 100);
  });
})();

// The callback names are dscb0, dscb1, … and are deleted after their last completion.
(function () {
  var before = window.dscb;
  var report = later('callback window.dscbN is deleted after completion', {name: "dscb" + before, deleted: true});
  dsBridge.call("testAsyn", "x", function () {
    var name = "dscb" + before;
    setTimeout(function () { report({name: name, deleted: !(name in window)}); }, 0);
  });
  check('a callback is stored as window["dscb" + n]', typeof window["dscb" + before], "function");
})();

// 2000 asynchronous calls, twice the shim's window of unanswered socket calls; the last
// callback sees the last value. (Made before the socket is up, they wait in the page; the
// sync call below sends them first, over HTTP, to keep program order.)
(function () {
  var report = later("2000 × testAsyn, last answer", {count: 2000, inOrder: true, last: "js+1999 [ asyn call]"}, 60000);
  var count = 0, inOrder = true;
  for (var i = 0; i < 2000; i++) {
    dsBridge.call("testAsyn", "js+" + i, function (v) {
      if (v !== "js+" + count + " [ asyn call]") inOrder = false;
      if (++count === 2000) report({count: count, inOrder: inOrder, last: v});
    });
  }
})();

// A sync call made after async calls still returns its own value at once.
check('dsBridge.call("echo.syn", [1, "two", {three: 3}]) after async calls',
  dsBridge.call("echo.syn", [1, "two", {three: 3}]), [1, "two", {three: 3}]);

// ---- Native calls JS (native-call-js.html) ------------------------------------------------

dsBridge.register('addValue', function (r, l) {
  DSTest.logNative('addValue(' + r + ', ' + l + ')');
  return r + l;
});

dsBridge.registerAsyn('append', function (arg1, arg2, arg3, responseCallback) {
  DSTest.logNative('append(' + [arg1, arg2, arg3].join(', ') + ')');
  responseCallback(arg1 + " " + arg2 + " " + arg3);
});

dsBridge.registerAsyn('startTimer', function (responseCallback) {
  DSTest.logNative('startTimer()');
  var t = 0;
  var timer = setInterval(function () {
    if (t == 5) {
      responseCallback(t);
      clearInterval(timer);
    } else {
      responseCallback(t++, false);
    }
  }, tick);
});

dsBridge.register("syn", {
  tag: "syn",
  addValue: function (r, l) {
    DSTest.logNative('syn.addValue(' + r + ', ' + l + ')');
    return r + l;
  },
  getInfo: function () {
    DSTest.logNative('syn.getInfo()');
    return {tag: this.tag, value: 8};
  }
});

dsBridge.registerAsyn("asyn", {
  tag: "asyn",
  addValue: function (r, l, responseCallback) {
    DSTest.logNative('asyn.addValue(' + r + ', ' + l + ')');
    responseCallback(r + l);
  },
  getInfo: function (responseCallback) {
    DSTest.logNative('asyn.getInfo()');
    responseCallback({tag: this.tag, value: 8});
  }
});

// test.nativeDemo asks dsbridged --demo to call the handlers above and to report each
// outcome here (the daemon never calls a page unasked).
dsBridge.register('demoReport', DSTest.demoReportHandler(11));
dsBridge.call('test.nativeDemo');

check("_hasJavascriptMethod('addValue')", window._dsf._hasJavascriptMethod('addValue'), true);
check("_hasJavascriptMethod('asyn.getInfo')", window._dsf._hasJavascriptMethod('asyn.getInfo'), true);
check("_hasJavascriptMethod('syn.XX')", window._dsf._hasJavascriptMethod('syn.XX'), false);

DSTest.finish(function () {
  return (window._dsbridge && window._dsbridge.session) || dsBridge.session;
});
