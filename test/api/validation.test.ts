// The validator itself, on schemas with the shapes later endpoints use (integers, nested objects,
// arrays), so its rules are pinned before those endpoints exist.
import assert from 'node:assert/strict';
import { compile, fieldErrors } from '../../api/platform/validation';
import { object } from '../../api/schemas/json-schema';

const schema = object(
  {
    amountCents: { type: 'integer', minimum: 1000, maximum: 100000000 },
    customer: object({ name: { type: 'string', minLength: 2 }, email: { type: 'string' } }, ['name', 'email']),
    lineItems: { type: 'array', items: object({ name: { type: 'string' }, quantity: { type: 'integer', minimum: 1 } }, ['name', 'quantity']) },
  },
  ['amountCents'],
);
const validate = compile(schema);

function errorsOf(value: unknown) {
  assert.equal(validate(value), false);
  return fieldErrors(validate.errors);
}

describe('validation', () => {
  it('says in words what a value missing its pattern must be', () => {
    const check = compile(object({ phone: { type: 'string', 'x-invalid': 'Must be a phone number.', pattern: '^0[0-9]{9}$' }, customerId: { type: 'string', pattern: '^cus_[0-9a-z]{24}$' }, code: { type: 'string', pattern: '^[A-Z]{3}$' } }, []));
    assert.equal(check({ phone: '12', customerId: 'cus_X', code: 'abc' }), false);
    assert.deepEqual(fieldErrors(check.errors), [
      { path: 'phone', message: 'Must be a phone number.' },
      { path: 'customerId', message: 'Must be an id: cus_ followed by lower-case letters and digits.' },
      { path: 'code', message: 'Must match the pattern ^[A-Z]{3}$.' },
    ]);
  });

  it('refuses fractions and numeric strings for integers, never rounding', () => {
    assert.deepEqual(errorsOf({ amountCents: 1500.5 }), [{ path: 'amountCents', message: 'Must be an integer.' }]);
    assert.deepEqual(errorsOf({ amountCents: '1500' }), [{ path: 'amountCents', message: 'Must be an integer.' }]);
    assert.equal(validate({ amountCents: 1500 }), true);
    assert.equal(validate({ amountCents: 1500.0 }), true, '1500.0 is the integer 1500 in JSON');
  });

  it('names nested and array paths, and refuses unknown keys with the object\'s path', () => {
    const errors = errorsOf({ amountCents: 5, customer: { name: 'A', extra: true }, lineItems: [{ name: 'Tea', quantity: 0 }, { quantity: 1.5 }] });
    const byPath = Object.fromEntries(errors.map((e) => [e.path, e.message]));
    assert.match(byPath.amountCents!, />= 1000/);
    assert.match(byPath['customer.name']!, /fewer than 2|at least|NOT have fewer/i);
    assert.equal(byPath['customer.email'], 'Required.');
    assert.match(byPath.customer!, /Unrecognized key "extra"/);
    assert.match(byPath['lineItems[0].quantity']!, />= 1/);
    assert.equal(byPath['lineItems[1].name'], 'Required.');
    assert.equal(byPath['lineItems[1].quantity'], 'Must be an integer.');
    const top = errorsOf({ amountCents: 1000, surprise: 1 });
    assert.deepEqual(top, [{ path: '', message: 'Unrecognized key "surprise".' }]);
  });
});
