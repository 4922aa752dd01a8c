// The sandbox card page's list of test cards names every expiry the sandbox gives a meaning of its
// own (each `'MM/YY'` its code compares an expiry with), in each of its languages.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { SANDBOX_MESSAGES } from '../../processor/sandbox/messages';

const SANDBOX = path.resolve(__dirname, '../../processor/sandbox');

describe('the sandbox page lists its test cards', () => {
  it('names every expiry the sandbox code knows, in English, Sinhala and Tamil', () => {
    const code = readdirSync(SANDBOX)
      .filter((f) => f.endsWith('.ts') && f !== 'messages.ts')
      .map((f) => readFileSync(path.join(SANDBOX, f), 'utf8'))
      .join('\n');
    const known = [...new Set([...code.matchAll(/'(\d\d\/\d\d)'/g)].map((m) => m[1]!))].sort();
    // The outcomes of paying (01, 04/27, 05, 06), of later charges (07, 08) and of refunds (09).
    assert.deepEqual(known, ['01/39', '04/27', '05/39', '06/39', '07/39', '08/39', '09/39']);
    for (const [locale, messages] of Object.entries(SANDBOX_MESSAGES)) {
      for (const expiry of known) assert.ok(messages.testCards.includes(expiry), `${locale}: ${expiry} in ${messages.testCards}`);
    }
  });
});
