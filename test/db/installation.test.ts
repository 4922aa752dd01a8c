// The installation row: one secret key for every process on a database, and the server's webhook
// loopback rule recorded for the CLI.
import assert from 'node:assert/strict';
import { startApi, type TestApi } from '../support/api';
import { SecretKeyMismatchError } from '../../db/installation';

describe('installation', () => {
  let api: TestApi;

  before(async () => {
    api = await startApi({ env: { PUBLIC_BASE_URL: 'https://pay.example.lk' } });
  });
  after(() => api?.close());

  it('a second server with another secret key refuses to start, naming both fingerprints', async () => {
    const other = Buffer.alloc(32, 9).toString('base64');
    await assert.rejects(api.sibling({ KASI_SECRET_KEY: other }), (err: unknown) => {
      assert.ok(err instanceof SecretKeyMismatchError);
      assert.notEqual(err.expected, err.actual);
      assert.match(err.message, /set KASI_SECRET_KEY/);
      return true;
    });
    const sibling = await api.sibling();
    await sibling.close();
  });

  it('records the loopback rule the server runs with (no loopback behind a public https base URL)', async () => {
    const row = await api.knex('installation').first();
    assert.equal(row.webhook_allow_loopback, false);
    assert.match(row.secret_key_fingerprint, /^[0-9a-f]{16}$/);
  });
});
