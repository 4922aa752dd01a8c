import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { verifyWebhook, WebhookVerificationError } from '../../sdk/index';
import { signatureHeader } from '../../domain/webhook-signature';

describe('verifyWebhook (the merchants\' helper)', () => {
  const secret = 'whsec_test_secret_one';
  const body = JSON.stringify({ id: 'evt_x', object: 'event', type: 'payment.succeeded', data: { amountCents: 350000 } });
  const now = new Date('2026-11-22T10:00:00.000Z');
  const t = Math.floor(now.getTime() / 1000);
  const plainHmac = (s: string, ts: number, raw: string) => createHmac('sha256', s).update(`${ts}.${raw}`).digest('hex');

  function failure(fn: () => unknown): string {
    try {
      fn();
    } catch (err) {
      assert.ok(err instanceof WebhookVerificationError, String(err));
      return err.reason;
    }
    assert.fail('expected a WebhookVerificationError');
  }

  it('accepts a signature made with a plain HMAC over "<t>.<raw body>" and returns the event', () => {
    const header = `t=${t},v1=${plainHmac(secret, t, body)}`;
    assert.equal(signatureHeader([secret], t, body), header);
    const event = verifyWebhook<{ id: string }>(body, header, secret, { now });
    assert.equal(event.id, 'evt_x');
    assert.equal(verifyWebhook<{ id: string }>(Buffer.from(body), header, secret, { now }).id, 'evt_x');
  });

  it('accepts any of several v1 (a rotated secret) and ignores other schemes', () => {
    const header = signatureHeader(['whsec_new', secret], t, body);
    assert.equal(header.split(',').length, 3);
    verifyWebhook(body, header, secret, { now });
    verifyWebhook(body, header, 'whsec_new', { now });
    verifyWebhook(body, `${header},v0=abc`, secret, { now });
    assert.equal(failure(() => verifyWebhook(body, header, 'whsec_other', { now })), 'no_matching_signature');
  });

  it('rejects a tampered body', () => {
    const header = signatureHeader([secret], t, body);
    assert.equal(failure(() => verifyWebhook(body.replace('350000', '350001'), header, secret, { now })), 'no_matching_signature');
    assert.equal(failure(() => verifyWebhook(`${body} `, header, secret, { now })), 'no_matching_signature');
  });

  it('rejects a timestamp outside the tolerance, either way (default 300 s)', () => {
    const at = (ts: number) => signatureHeader([secret], ts, body);
    verifyWebhook(body, at(t - 300), secret, { now });
    verifyWebhook(body, at(t + 300), secret, { now });
    assert.equal(failure(() => verifyWebhook(body, at(t - 301), secret, { now })), 'timestamp_outside_tolerance');
    assert.equal(failure(() => verifyWebhook(body, at(t + 301), secret, { now })), 'timestamp_outside_tolerance');
    verifyWebhook(body, at(t - 3600), secret, { now, toleranceSeconds: 3600 });
  });

  const malformed: [string, string | undefined][] = [
    ['no header', undefined],
    ['an empty header', ''],
    ['no t', `v1=${'a'.repeat(64)}`],
    ['no v1', `t=${t}`],
    ['t of 13 digits', `t=1${'0'.repeat(12)},v1=${'a'.repeat(64)}`],
    ['t not a number', `t=abc,v1=${'a'.repeat(64)}`],
    ['an empty t', `t=,v1=${'a'.repeat(64)}`],
    ['two t', `t=${t},t=${t},v1=${'a'.repeat(64)}`],
    ['v1 of 63 hex', `t=${t},v1=${'a'.repeat(63)}`],
    ['v1 of 65 hex', `t=${t},v1=${'a'.repeat(65)}`],
    ['v1 not hex', `t=${t},v1=${'g'.repeat(64)}`],
    ['a part without =', `t=${t},v1`],
    ['spaces', `t=${t}, v1=${'a'.repeat(64)}`],
  ];
  for (const [name, header] of malformed) {
    it(`rejects a malformed header: ${name}`, () => {
      assert.equal(failure(() => verifyWebhook(body, header, secret, { now })), 'malformed_header');
    });
  }
});
