// SPDX-License-Identifier: MIT
// dsbridge.mjs bundled before the original npm "dsbridge" 3.1.4: both APIs over one
// session. The checks: transport-checks.mjs.
import './fake-browser.mjs';
import * as client from '../../dsbridge.mjs';
import original from './original-npm.mjs';
import { transportTests } from './transport-checks.mjs';

client.configure({ auth: 'secret' });
transportTests(original, client, { originalFirst: false });
