import assert from 'node:assert/strict';
import { idPattern, addToTail, CURSOR_PATTERN } from '../../domain/ids';
import { newId, randomHex } from '../../crypto/ids';
import { colomboMonth } from '../../domain/time';
import { formatRupees, centsFromDb, centsFromDecimal, decimalAmount } from '../../domain/money';
import { normaliseSriLankanMobile, normaliseSriLankanPhone } from '../../domain/phone';
import { parseKeyShape, redactKey } from '../../domain/api-keys';
import { generateKey, hashKey } from '../../crypto/api-keys';
import { ApiError, errorAnchor } from '../../domain/errors';

describe('domain: ids', () => {
  it('makes a prefix plus 24 characters of [0-9a-z], matching the cursor pattern', () => {
    const id = newId('checkout');
    assert.match(id, new RegExp(idPattern('checkout')));
    assert.match(id, new RegExp(CURSOR_PATTERN));
    assert.match(newId('refund'), /^re_[0-9a-z]{24}$/);
  });

  it('orders ids by creation time, and strictly within one millisecond', () => {
    const early = newId('payment', Date.UTC(2026, 0, 1));
    const late = newId('payment', Date.UTC(2026, 0, 1) + 1);
    assert.ok(early < late);
    const same = Array.from({ length: 1000 }, () => newId('payment', Date.UTC(2030, 0, 1)));
    assert.deepEqual([...same].sort(), same);
    assert.equal(new Set(same).size, same.length);
  });

  it('an id carries its object\'s time, also one behind the last id\'s, and ids of one millisecond increase in the order made', () => {
    const ahead = newId('invoice', Date.UTC(2032, 0, 1));
    const now = Date.UTC(2030, 5, 1);
    const back = newId('invoice', now);
    const next = newId('invoice', now);
    assert.ok(back < ahead && back < next, 'not clamped to the later time');
    assert.equal(back.slice(3, 12), now.toString(36).padStart(9, '0'));
    const stepped = newId('invoice', now - 500);
    assert.ok(stepped < back, 'a time a little behind is its own too');
    assert.equal(stepped.slice(3, 12), (now - 500).toString(36).padStart(9, '0'));
    assert.ok(newId('invoice', now) > next, 'the later millisecond goes on increasing');
    assert.ok(newId('invoice', now - 500) > stepped);
  });

  it('ids made in one millisecond are a random step apart, never a guessable neighbour', () => {
    const at = Date.UTC(2031, 0, 1);
    const tail = (id: string) => [...id.slice(-15)].reduce((value, digit) => value * 36n + BigInt(parseInt(digit, 36)), 0n);
    const ids = Array.from({ length: 2000 }, () => newId('checkout', at));
    const steps = ids.slice(1).map((id, i) => (id.slice(0, -15) === ids[i]!.slice(0, -15) ? tail(id) - tail(ids[i]!) : undefined));
    const sameMillis = steps.filter((step) => step !== undefined);
    assert.ok(sameMillis.length >= 1998, 'an overflow into the next millisecond is rare');
    assert.ok(sameMillis.every((step) => step > 1000n), 'no id within 1,000 of the one before');
    assert.equal(new Set(sameMillis).size, sameMillis.length, 'no two equal steps');
    const median = [...sameMillis].sort((x, y) => (x < y ? -1 : 1))[sameMillis.length >> 1]!;
    assert.ok(median > 2n ** 48n && median < 36n ** 10n, `median step ${median}`);
  });

  it('adds a step to the tail with the carry across its parts, and says when it overflows', () => {
    const top = 36 ** 5 - 1;
    assert.deepEqual(addToTail([3, 4, 5], [0, 0, 1]), [3, 4, 6]);
    assert.deepEqual(addToTail([3, top, top], [0, 0, 1]), [4, 0, 0]);
    assert.deepEqual(addToTail([3, top, 7], [0, 2, top]), [4, 2, 6]);
    assert.equal(addToTail([top, top, top], [0, 0, 1]), undefined);
  });

  it('draws random hex of the length asked, different each time, across pool refills', () => {
    const drawn = Array.from({ length: 1000 }, () => randomHex(12));
    for (const hex of drawn) assert.match(hex, /^[0-9a-f]{24}$/);
    assert.equal(new Set(drawn).size, drawn.length);
  });
});

describe('domain: Sri Lankan months', () => {
  it('starts months at midnight on the 1st in Colombo (UTC+05:30)', () => {
    assert.deepEqual(colomboMonth(new Date('2026-11-30T18:29:59.999Z')), {
      start: new Date('2026-10-31T18:30:00.000Z'),
      end: new Date('2026-11-30T18:30:00.000Z'),
    });
    assert.equal(colomboMonth(new Date('2026-11-30T18:30:00.000Z')).start.toISOString(), '2026-11-30T18:30:00.000Z');
    assert.equal(colomboMonth(new Date('2026-12-31T20:00:00.000Z')).start.toISOString(), '2026-12-31T18:30:00.000Z', 'January 2027 in Colombo');
  });
});

describe('domain: money', () => {
  it('formats cents as rupees', () => {
    assert.equal(formatRupees(350000), 'Rs. 3,500.00');
    assert.equal(formatRupees(100000000), 'Rs. 1,000,000.00');
    assert.equal(formatRupees(1005), 'Rs. 10.05');
    assert.equal(formatRupees(-250), '-Rs. 2.50');
  });

  it('refuses database values that are not safe integers', () => {
    assert.equal(centsFromDb('123'), 123);
    assert.throws(() => centsFromDb('1.5'));
    assert.throws(() => centsFromDb('9007199254740993'));
  });

  it('writes cents as a processor\'s decimal amount with two decimals, and reads it back', () => {
    assert.equal(decimalAmount(123456), '1234.56');
    assert.equal(decimalAmount(5), '0.05');
    assert.equal(decimalAmount(100000), '1000.00');
    assert.throws(() => decimalAmount(1.5));
    assert.equal(centsFromDecimal('1234.56'), 123456);
    assert.equal(centsFromDecimal(1234.5), 123450);
    assert.equal(centsFromDecimal('7'), 700);
    assert.throws(() => centsFromDecimal('1.234'));
    assert.throws(() => centsFromDecimal('-1.00'));
  });
});

describe('domain: phone numbers', () => {
  it('normalises Sri Lankan numbers to +94', () => {
    for (const input of ['0771234567', '077 123 4567', '077-123-4567', '+94771234567', '+94 77 123 4567', '94771234567', '0094771234567']) {
      assert.equal(normaliseSriLankanMobile(input), '+94771234567', input);
    }
    assert.equal(normaliseSriLankanPhone('011 234 5678'), '+94112345678');
    assert.equal(normaliseSriLankanMobile('011 234 5678'), null, 'a landline is not a mobile');
    for (const input of ['', '12345', '07712345678', '+1 415 555 0100', '0071234567', 'abc']) {
      assert.equal(normaliseSriLankanPhone(input), null, input);
    }
  });
});

describe('domain: API keys', () => {
  it('generates keys of the documented shape and parses kind and mode back', () => {
    const key = generateKey('publishable', 'live');
    assert.match(key, /^pk_live_[0-9A-Za-z]{32}$/);
    assert.deepEqual(parseKeyShape(key), { kind: 'publishable', mode: 'live' });
    assert.equal(parseKeyShape(key.slice(0, -1)), null);
    assert.equal(parseKeyShape(`${key}a`), null);
    assert.notEqual(generateKey('secret', 'test'), generateKey('secret', 'test'));
  });

  it('stores a hash and shows only a hint', () => {
    const key = generateKey('secret', 'test');
    assert.match(hashKey(key), /^[0-9a-f]{64}$/);
    assert.equal(redactKey(key), `sk_test_...${key.slice(-4)}`);
  });
});

describe('domain: errors', () => {
  it('takes the status from the reason, with body_too_large at 413', () => {
    const tooLarge = new ApiError('body_too_large', 'x');
    assert.equal(tooLarge.code, 'VALIDATION_FAILED');
    assert.equal(tooLarge.status, 413);
    assert.equal(new ApiError('mode_mismatch', 'x').status, 404);
    assert.equal(new ApiError('RATE_LIMITED', 'x').reason, undefined);
    assert.equal(errorAnchor('RATE_LIMITED', undefined), 'rate_limited');
    assert.equal(errorAnchor('CONFLICT', 'idempotency_key_reused'), 'idempotency_key_reused');
  });
});
