// SPDX-License-Identifier: MIT
// First script of every page in this folder: records uncaught errors and unhandled rejections
// (scripts/esm_browser_test.py expects none).
window.pageErrors = [];
window.addEventListener('error', function (e) {
  window.pageErrors.push('error: ' + (e.message || e));
});
window.addEventListener('unhandledrejection', function (e) {
  window.pageErrors.push('unhandled rejection: ' + ((e.reason && e.reason.message) || e.reason));
});
