// Invoice charges taken together (services/invoices/collect.ts chargeInvoices): the attempts of
// one renewal instant read in one statement, their payments written in one query, the processor
// asked for all in one call (the sandbox's chargeSaved) and the outcomes applied in one
// transaction, each attempt answered in order. Batching is where one invoice's outcome can land on
// another's answer, where a retried activity could charge a card again, and where two asks of one
// invoice could both charge it, so each step, payment, processor charge and event is checked per
// invoice. The invoices are real renewals on one test clock, charged by their workflows at the
// renewal and declined on the 07/39 card: attempt 2 is then this file's to make (their workflows
// make it only when the clock reaches the ladder's day 1, and the clock is not advanced again);
// the customers meant to pay keep a good card (01/39) first. And `leave`: the attempt that ends a
// collection on a clock takes the named workflow's clock wait (clock_waits) with it.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { findInvoice, type InvoiceRow } from '../../db/invoices';
import { putClockWait } from '../../db/test-clocks';
import { nextAttemptAt } from '../../domain/dunning';
import { chargeInvoices } from '../../services/invoices/collect';
import { payAndKeep, serviceDeps } from '../cards/card-flow';
import { startApiWithMerchant, type TestApi } from '../support/api';
import { at, billingFlow, DAY } from './billing-flow';

const START = '2027-04-08T04:30:00.000Z';
const RENEWAL = '2027-05-08T04:30:00.000Z';
const DECLINED = 'The card was declined by its bank.';

describe('invoice charges taken together (chargeInvoices)', function () {
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;
  let clockId: string;
  /** Each customer's renewal invoice, open after its first attempt declined, by the customer's name. */
  const renewals = new Map<string, InvoiceRow>();

  const { post, read, advance, monthly, invoicesOf, chargesOf } = billingFlow(() => ({ api, keys }));

  /** The processor's charges (sandbox_charges, any reference `<payment>.<n>`) of the invoice's payments: each payment's attempt and the charge's status. */
  const processorChargesOf = async (invoiceId: string) => {
    const rows = await api.knex('payments as p')
      .join('sandbox_charges as s', api.knex.raw("split_part(s.reference, '.', 1) = p.id"))
      .where('p.invoice_id', invoiceId)
      .orderBy('p.invoice_attempt')
      .select('p.invoice_attempt', 's.status');
    return rows.map((c: { invoice_attempt: number; status: string }) => [c.invoice_attempt, c.status]);
  };
  const eventsAbout = async (type: string, id: string) => (await api.knex('events').where({ type }).whereRaw("data->>'id' = ?", [id]).orderBy('id')).map((e: { data: any }) => e.data);
  const invoice = (name: string) => renewals.get(name)!;
  const row = (name: string) => findInvoice(api.knex, invoice(name).id);
  const subscriptionStatus = async (name: string) => (await read(`/v1/subscriptions/${invoice(name).subscription_id!}`)).status;
  const iso = (date: Date | null) => date?.toISOString() ?? null;
  /** Attempt 2's step when declined: the ladder's time from the invoice's first decline (day 3). */
  const ladderStep = (declined: InvoiceRow) => ({ kind: 'declined' as const, nextAttemptAt: nextAttemptAt(declined.first_failed_at!, 2)!.getTime() });

  // Customers who keep a good card after the first decline (attempt 2 is paid), and those left on 07/39.
  const GOOD = ['paid-in-batch', 'paid-retried', 'paid-twice', 'paid-leaves'];
  const BAD = ['declined-in-batch', 'declined-retried', 'declined-twice', 'declined-stays', 'declined-once', 'declined-to-the-end'];

  before(async () => {
    ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2027-04-01T04:30:00.000Z') }));
    const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: START });
    clockId = clock.id;
    const price = await monthly();
    const subscriptions = new Map<string, string>();
    for (const name of [...GOOD, ...BAD]) {
      // A customer of their own each (kept cards become the default of every customer with the email).
      const email = `${name}@example.com`;
      const customer = await post('/v1/customers', { email, name, testClockId: clock.id });
      await payAndKeep(api, keys, { email, expiry: '01/39' });
      const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id });
      await api.workflows.settle();
      assert.equal((await read(`/v1/subscriptions/${subscription.id}`)).status, 'active');
      await payAndKeep(api, keys, { email, expiry: '07/39' });
      subscriptions.set(name, subscription.id);
    }
    await advance(clock.id, RENEWAL);
    for (const [name, subscriptionId] of subscriptions) {
      const [, renewal] = await invoicesOf(subscriptionId);
      assert.deepEqual(
        [renewal.billingReason, renewal.collectionMethod, renewal.status, renewal.attemptCount, renewal.nextAttemptAt, renewal.lastFailure],
        ['subscription_cycle', 'charge_automatically', 'open', 1, at(RENEWAL, DAY), DECLINED],
        name,
      );
      renewals.set(name, await findInvoice(api.knex, renewal.id));
    }
    for (const name of GOOD) await payAndKeep(api, keys, { email: `${name}@example.com`, expiry: '01/39' });
  });
  after(() => api.close());

  it('invoices of different customers in one call: the good card\'s paid, the 07/39 card\'s declined with the ladder\'s next time; one payment and one processor charge each', async () => {
    const [paid, declined] = [invoice('paid-in-batch'), invoice('declined-in-batch')];
    assert.equal(iso(declined.first_failed_at), RENEWAL);
    const steps = await chargeInvoices(serviceDeps(api), [
      { invoiceId: paid.id, attempt: 2 },
      { invoiceId: declined.id, attempt: 2 },
    ]);
    assert.deepEqual(steps, [{ kind: 'paid' }, ladderStep(declined)]);
    assert.equal(ladderStep(declined).nextAttemptAt, Date.parse(at(RENEWAL, 3 * DAY)));

    const paidRow = await row('paid-in-batch');
    assert.deepEqual(
      [paidRow.status, paidRow.attempt_count, Number(paidRow.amount_paid_cents), iso(paidRow.paid_at), paidRow.next_attempt_at],
      ['paid', 2, 150000, RENEWAL, null],
    );
    const declinedRow = await row('declined-in-batch');
    assert.deepEqual(
      [declinedRow.status, declinedRow.attempt_count, declinedRow.last_failure, iso(declinedRow.first_failed_at), iso(declinedRow.next_attempt_at), Number(declinedRow.amount_paid_cents)],
      ['open', 2, DECLINED, RENEWAL, at(RENEWAL, 3 * DAY), 0],
    );
    // Attempt 2 is one payment and one processor charge of each invoice, each with its own outcome.
    assert.deepEqual((await chargesOf(paid.id)).map((c: any) => [c.invoice_attempt, c.status, Number(c.amount_cents)]), [[1, 'failed', 150000], [2, 'succeeded', 150000]]);
    assert.deepEqual((await chargesOf(declined.id)).map((c: any) => [c.invoice_attempt, c.status, Number(c.amount_cents)]), [[1, 'failed', 150000], [2, 'failed', 150000]]);
    assert.deepEqual(await processorChargesOf(paid.id), [[1, 'declined'], [2, 'approved']]);
    assert.deepEqual(await processorChargesOf(declined.id), [[1, 'declined'], [2, 'declined']]);

    assert.deepEqual((await eventsAbout('invoice.paid', paid.id)).map((i: any) => [i.status, i.attemptCount]), [['paid', 2]]);
    // Both at the clock's one instant: their ids do not order them, their attempts do.
    const failed = (await eventsAbout('invoice.payment_failed', declined.id)).map((i: any) => [i.attemptCount, i.nextAttemptAt, i.lastFailure]);
    assert.deepEqual(failed.sort((a, b) => a[0] - b[0]), [[1, at(RENEWAL, DAY), DECLINED], [2, at(RENEWAL, 3 * DAY), DECLINED]]);
    assert.deepEqual(await eventsAbout('invoice.paid', declined.id), []);
    assert.deepEqual([await subscriptionStatus('paid-in-batch'), await subscriptionStatus('declined-in-batch')], ['active', 'past_due']);
  });

  it('the same call again (a retried activity): answered from what was recorded, no new processor charge, payment, event or email', async () => {
    const [paid, declined] = [invoice('paid-retried'), invoice('declined-retried')];
    const attempts = [
      { invoiceId: paid.id, attempt: 2 },
      { invoiceId: declined.id, attempt: 2 },
    ];
    const deps = serviceDeps(api);
    assert.deepEqual(await chargeInvoices(deps, attempts), [{ kind: 'paid' }, ladderStep(declined)]);
    const recorded = async () => ({
      invoices: await api.knex('invoices').whereIn('id', [paid.id, declined.id]).orderBy('id'),
      payments: await api.knex('payments').whereIn('invoice_id', [paid.id, declined.id]).orderBy('id').select('id', 'invoice_attempt', 'status'),
      processor: [await processorChargesOf(paid.id), await processorChargesOf(declined.id)],
      events: await api.knex('events').whereRaw("data->>'id' in (?, ?)", [paid.id, declined.id]).orderBy('id').select('id', 'type'),
      emails: await api.knex('emails').whereIn('object_id', [paid.id, declined.id]).orderBy('id').select('id', 'kind'),
    });
    const before = await recorded();

    // The paid invoice is answered paid again; the declined one as recorded.
    assert.deepEqual(await chargeInvoices(deps, attempts), [{ kind: 'paid' }, ladderStep(declined)]);
    assert.deepEqual(await recorded(), before);
    assert.equal((await eventsAbout('invoice.paid', paid.id)).length, 1);
    assert.equal((await eventsAbout('invoice.payment_failed', declined.id)).length, 2);
    assert.deepEqual(before.processor, [[[1, 'declined'], [2, 'approved']], [[1, 'declined'], [2, 'declined']]]);
  });

  it('one invoice asked twice in one call (same attempt): taken one after the other, the second reads what the first did; one charge each', async () => {
    const [paid, declined] = [invoice('paid-twice'), invoice('declined-twice')];
    const steps = await chargeInvoices(serviceDeps(api), [
      { invoiceId: paid.id, attempt: 2 },
      { invoiceId: declined.id, attempt: 2 },
      { invoiceId: paid.id, attempt: 2 },
      { invoiceId: declined.id, attempt: 2 },
    ]);
    // The second ask of the paid invoice finds it paid; of the declined one, the decline recorded.
    assert.deepEqual(steps, [{ kind: 'paid' }, ladderStep(declined), { kind: 'paid' }, ladderStep(declined)]);
    assert.deepEqual((await chargesOf(paid.id)).map((c: any) => [c.invoice_attempt, c.status]), [[1, 'failed'], [2, 'succeeded']]);
    assert.deepEqual((await chargesOf(declined.id)).map((c: any) => [c.invoice_attempt, c.status]), [[1, 'failed'], [2, 'failed']]);
    assert.deepEqual(await processorChargesOf(paid.id), [[1, 'declined'], [2, 'approved']]);
    assert.deepEqual(await processorChargesOf(declined.id), [[1, 'declined'], [2, 'declined']]);
    assert.deepEqual([(await row('paid-twice')).attempt_count, (await row('declined-twice')).attempt_count], [2, 2]);
    assert.equal((await eventsAbout('invoice.paid', paid.id)).length, 1);
    assert.equal((await eventsAbout('invoice.payment_failed', declined.id)).length, 2);
  });

  it('leave: the attempt that ends its collection takes the workflow\'s clock wait with it (paid, declined once, the ladder\'s last); one with a retry to come keeps it', async () => {
    const dueAt = new Date(at(RENEWAL, 30 * DAY));
    const waits = ['batch-test/paid', 'batch-test/stays', 'batch-test/once', 'batch-test/end'];
    for (const workflowId of waits) assert.ok(await putClockWait(api.knex, { workflowId, clockId, dueAt }));
    const waiting = async () => (await api.knex('clock_waits').whereIn('workflow_id', waits).orderBy('workflow_id').pluck('workflow_id')) as string[];
    assert.deepEqual(await waiting(), [...waits].sort());

    const deps = serviceDeps(api);
    const [paid, stays, once, end] = [invoice('paid-leaves'), invoice('declined-stays'), invoice('declined-once'), invoice('declined-to-the-end')];
    // The ladder's end: attempts 2 to 4 declined (a retry to come each), then the last, attempt 5.
    for (const attempt of [2, 3, 4]) {
      assert.deepEqual(await chargeInvoices(deps, [{ invoiceId: end.id, attempt, leave: { workflowId: 'batch-test/end', once: false } }]), [
        { kind: 'declined', nextAttemptAt: nextAttemptAt(end.first_failed_at!, attempt)!.getTime() },
      ]);
      assert.ok((await waiting()).includes('batch-test/end'), `attempt ${attempt} leaves the wait`);
    }

    const steps = await chargeInvoices(deps, [
      { invoiceId: paid.id, attempt: 2, leave: { workflowId: 'batch-test/paid', once: false } },
      { invoiceId: stays.id, attempt: 2, leave: { workflowId: 'batch-test/stays', once: false } },
      { invoiceId: once.id, attempt: 2, leave: { workflowId: 'batch-test/once', once: true } },
      { invoiceId: end.id, attempt: 5, leave: { workflowId: 'batch-test/end', once: false } },
    ]);
    assert.deepEqual(steps, [{ kind: 'paid' }, ladderStep(stays), ladderStep(once), { kind: 'declined', nextAttemptAt: null }]);
    assert.deepEqual(await waiting(), ['batch-test/stays']);
    // The invoices' own workflows still wait for the ladder's day 1 (nothing here spoke for them).
    const own = await api.knex('clock_waits').whereIn('workflow_id', [paid, stays, once, end].map((i) => `invoice/${i.id}`)).pluck('due_at');
    assert.deepEqual(own.map((d: Date) => d.toISOString()), [paid, stays, once, end].map(() => at(RENEWAL, DAY)));

    const last = await row('declined-to-the-end');
    assert.deepEqual([last.status, last.attempt_count, last.next_attempt_at], ['open', 5, null]);
    assert.deepEqual((await chargesOf(end.id)).map((c: any) => [c.invoice_attempt, c.status]), [1, 2, 3, 4, 5].map((n) => [n, 'failed']));
    assert.deepEqual(
      [await subscriptionStatus('paid-leaves'), await subscriptionStatus('declined-stays'), await subscriptionStatus('declined-once'), await subscriptionStatus('declined-to-the-end')],
      ['active', 'past_due', 'past_due', 'unpaid'],
    );
  });
});
