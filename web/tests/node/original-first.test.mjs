// SPDX-License-Identifier: MIT
// The original npm "dsbridge" 3.1.4 bundled before dsbridge.mjs (transport mode): both APIs
// over one session. The checks: transport-checks.mjs.
import './fake-browser.mjs';
import original from './original-npm.mjs';
import * as client from '../../dsbridge.mjs';
import { transportTests } from './transport-checks.mjs';

client.configure({ auth: 'secret' });
transportTests(original, client, { originalFirst: true });
