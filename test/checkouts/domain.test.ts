import assert from 'node:assert/strict';
import { cardScheme, looksLikeCardNumber, luhnValid } from '../../domain/card';
import { returnUrlProblem, summariseLineItems } from '../../domain/checkout-rules';
import { paymentFee } from '../../domain/fees';
import { formatRupees } from '../../domain/money';
import { outcomeForExpiry, TEST_CARDS } from '../../processor/sandbox/cards';

describe('checkout domain rules', () => {
  it('every sandbox test card passes Luhn and has its scheme', () => {
    for (const card of TEST_CARDS) {
      assert.ok(luhnValid(card.number), card.number);
      assert.equal(cardScheme(card.number), card.scheme, card.number);
    }
    assert.equal(luhnValid('5123450000000009'), false);
    assert.equal(cardScheme('9999999999999995'), null);
  });

  it('spots 13 to 19 Luhn-valid digits in text, with spaces or dashes, and nothing shorter', () => {
    assert.ok(looksLikeCardNumber('5123 4500 0000 0008'));
    assert.ok(looksLikeCardNumber('my card 4111-1111-1111-1111 thanks'));
    assert.ok(looksLikeCardNumber('4222222222222'), '13 digits');
    assert.ok(!looksLikeCardNumber('077 123 4567'));
    assert.ok(!looksLikeCardNumber('+94771234567'));
    assert.ok(!looksLikeCardNumber('5123450000000009'), 'fails Luhn');
    assert.ok(!looksLikeCardNumber('Nimal Perera'));
  });

  it('fees: basis points rounded half up plus the fixed part, never above the amount', () => {
    assert.deepEqual(paymentFee(350000, { feeBasisPoints: 330, feeFixedCents: 0 }), { feeCents: 11550, netCents: 338450 });
    assert.deepEqual(paymentFee(1015, { feeBasisPoints: 330, feeFixedCents: 0 }), { feeCents: 33, netCents: 982 }, '33.495 rounds to 33');
    assert.deepEqual(paymentFee(1500, { feeBasisPoints: 300, feeFixedCents: 0 }), { feeCents: 45, netCents: 1455 });
    assert.deepEqual(paymentFee(1050, { feeBasisPoints: 300, feeFixedCents: 5000 }), { feeCents: 1050, netCents: 0 });
  });

  it('sandbox expiry outcomes', () => {
    const now = new Date('2026-01-15T00:00:00Z');
    assert.equal(outcomeForExpiry(1, 2039, now), 'approved');
    assert.equal(outcomeForExpiry(5, 2039, now), 'card_declined');
    assert.equal(outcomeForExpiry(4, 2027, now), 'expired_card');
    assert.equal(outcomeForExpiry(6, 2039, now), 'insufficient_funds');
    assert.equal(outcomeForExpiry(12, 2025, now), 'expired_card');
    assert.equal(outcomeForExpiry(1, 2026, now), 'approved', 'valid to the end of its month');
    assert.equal(outcomeForExpiry(8, 2030, now), 'approved');
  });

  it('return URLs, summaries and rupees', () => {
    assert.equal(returnUrlProblem('https://x.example/a'), null);
    assert.equal(returnUrlProblem('http://[::1]:3000/a'), null);
    assert.equal(returnUrlProblem('com.shop.app://paid'), null);
    assert.notEqual(returnUrlProblem('myapp:paid'), null);
    assert.notEqual(returnUrlProblem('JAVASCRIPT://x'), null);
    assert.equal(summariseLineItems([{ name: 'Tea', unitAmountCents: 100, quantity: 2 }]), '2 × Tea');
    assert.equal(formatRupees(350000), 'Rs. 3,500.00');
  });
});
