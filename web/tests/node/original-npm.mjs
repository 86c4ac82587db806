// SPDX-License-Identifier: MIT
// The original npm "dsbridge" 3.1.4 (web/tests/vendor/dsbridge-3.1.4.js, unchanged) as a
// bundler includes it: its text run as a CommonJS module (module, exports; `this` is
// module.exports), with module.exports as this module's default export. Import it before or
// after dsbridge.mjs to choose the order.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const path = fileURLToPath(new URL('../vendor/dsbridge-3.1.4.js', import.meta.url));
const wrapper = vm.runInThisContext('(function (module, exports) {\n' + readFileSync(path, 'utf8') + '\n})', { filename: path });
const module = { exports: {} };
wrapper.call(module.exports, module, module.exports);

export default module.exports;
