// SPDX-License-Identifier: MIT
// web/package.json as an app sees the package "dsbridged-client" once installed (a
// node_modules/dsbridged-client link to web/, as `npm install ./web` makes): `import` gets the
// ES module, `require` the classic script, TypeScript the typings, and the files an npm pack
// takes ("files") hold everything the module loads.
import './fake-browser.mjs';
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const WEB = realpathSync(fileURLToPath(new URL('../../', import.meta.url)));
const pkg = JSON.parse(readFileSync(join(WEB, 'package.json'), 'utf8'));
const app = mkdtempSync(join(tmpdir(), 'dsbridged-client-app-'));
mkdirSync(join(app, 'node_modules'));
symlinkSync(WEB, join(app, 'node_modules', 'dsbridged-client'), 'dir');
after(() => rmSync(app, { recursive: true, force: true }));

test('name, version (major = wire protocol version 1), entry points that exist', () => {
  assert.equal(pkg.name, 'dsbridged-client');
  assert.match(pkg.version, /^1\.\d+\.\d+$/);
  const root = pkg.exports['.'];
  assert.deepEqual(Object.keys(root), ['types', 'import', 'default'], 'conditions in this order: types first, default last');
  assert.equal(root.types, './dsbridge.d.ts');
  assert.equal(root.import, './dsbridge.mjs');
  assert.equal(root.default, './dsbridge.js');
  assert.equal(pkg.types, root.types, 'types for TypeScript without exports support');
  assert.equal(pkg.main, root.default, 'main for tools without exports support');
  assert.equal(pkg.module, root.import, 'module for bundlers without exports support');
  for (const target of [pkg.main, pkg.module, pkg.types, ...Object.values(pkg.exports).flatMap((v) => (typeof v === 'string' ? [v] : Object.values(v)))]) {
    assert.ok(existsSync(join(WEB, target)), target + ' exists');
  }
});

test('"files" holds every file the module loads and every entry point', () => {
  const needed = new Set(['dsbridge.mjs', 'dsbridge.js', 'dsbridge.d.ts']);
  const pending = ['dsbridge.mjs'];
  while (pending.length) {
    const text = readFileSync(join(WEB, pending.pop()), 'utf8');
    for (const [, spec] of text.matchAll(/^\s*(?:import|export)\s+(?:[^'";]*?\s+from\s+)?['"](\.\/[^'"]+)['"]/gm)) {
      const file = spec.slice(2);
      if (!needed.has(file)) pending.push(file);
      needed.add(file);
    }
  }
  assert.ok(needed.has('dsbridge-module.mjs'), 'the module graph was read');
  for (const file of needed) assert.ok(pkg.files.includes(file), file + ' is in "files"');
  for (const file of pkg.files) assert.ok(existsSync(join(WEB, file)), file + ' exists');
});

test('an app importing "dsbridged-client" gets the ES module; require gets the classic script', async () => {
  writeFileSync(join(app, 'main.mjs'), "export * as client from 'dsbridged-client';\n");
  const { client } = await import(pathToFileURL(join(app, 'main.mjs')).href);
  const direct = await import('../../dsbridge.mjs');
  assert.equal(typeof client.invoke, 'function');
  assert.equal(client.dsBridge, direct.dsBridge, 'the same module as web/dsbridge.mjs');
  assert.equal(client.dsBridge, window.dsBridge);
  const require = createRequire(join(app, 'main.cjs'));
  assert.equal(require.resolve('dsbridged-client'), join(WEB, 'dsbridge.js'));
  assert.equal(require('dsbridged-client/package.json').version, pkg.version);
});
