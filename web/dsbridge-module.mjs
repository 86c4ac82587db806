// SPDX-License-Identifier: MIT
// Evaluated by dsbridge.mjs just before dsbridge.js: marks that dsbridge.js now runs as part of
// the ES module, not as a page's script, and from which URL (the default server's origin when
// it is http(s)). dsbridge.js reads the mark and deletes it (see its top comment).
window[Symbol.for('dsbridged.module')] = import.meta.url;
