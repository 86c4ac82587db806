// SPDX-License-Identifier: MIT
// Checks that the original library is the one in use and that ours only added its hook;
// dsbridge-style.js then runs DSBridge's demo rows through the original's API.
DSTest.check('window.dsBridge is the original 3.1.4 object (no invoke())', typeof window.dsBridge.invoke, 'undefined');
DSTest.check('window.bridge === window.dsBridge (original globals kept)', window.bridge === window.dsBridge, true);
DSTest.check('window._dsbridge.call is installed', typeof (window._dsbridge && window._dsbridge.call), 'function');
