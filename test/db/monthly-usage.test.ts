// The month's use read from the running totals the payments' trigger keeps (migration 015) must
// equal the sum over the payments themselves, whatever moves a payment makes: with the processor,
// succeeded, failed, refunded, succeeded in another month, deleted.
import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { newId } from '../../crypto/ids';
import { connect } from '../../db/connection';
import { createMerchant } from '../../db/merchants';
import { monthlyUsageCents } from '../../db/monthly-usage';
import { colomboMonth } from '../../domain/time';
import { freshDatabase, type TestDatabase } from '../support/database';

describe("the month's use of the monthly limit", () => {
  let database: TestDatabase;
  let knex: Knex;
  let accountId: string;
  // 10:00 on 15 March 2026 in Colombo, and midnight on 1 April there (18:30 UTC on 31 March).
  const march = new Date('2026-03-15T04:30:00.000Z');
  const aprilFirst = new Date('2026-03-31T18:30:00.000Z');

  before(async () => {
    database = await freshDatabase();
    knex = connect(database.url, 2);
    accountId = (await createMerchant(knex, { name: 'Usage', now: march })).account.id;
  });
  after(async () => {
    await knex?.destroy();
    await database?.drop();
  });

  /** The same use summed over the payments (what the totals replaced). */
  async function summed(mode: 'test' | 'live', at: Date): Promise<number> {
    const month = colomboMonth(at);
    const [row] = (await knex('payments')
      .where({ account_id: accountId, mode })
      .andWhere((q) => {
        void q.where({ status: 'processing' }).orWhere((s) => {
          void s.whereNot({ status: 'processing' }).where('succeeded_at', '>=', month.start).where('succeeded_at', '<', month.end);
        });
      })
      .sum({ used: 'amount_cents' })) as { used: string | null }[];
    return Number(row!.used ?? 0);
  }

  async function payment(mode: 'test' | 'live', amount: number, status: string, succeededAt: Date | null = null): Promise<string> {
    const id = newId('payment', march.getTime());
    await knex('payments').insert({ id, account_id: accountId, mode, status, amount_cents: amount, description: 'Tea', attempts: 1, created_at: march, succeeded_at: succeededAt });
    return id;
  }

  async function expectUse(mode: 'test' | 'live', at: Date, cents: number): Promise<void> {
    assert.equal(await monthlyUsageCents(knex, accountId, mode, at), cents);
    assert.equal(await summed(mode, at), cents);
  }

  it('follows every move of a payment, per mode and per Sri Lankan month', async () => {
    await expectUse('test', march, 0);
    const first = await payment('test', 150_000, 'processing');
    const second = await payment('test', 20_000, 'processing');
    await payment('test', 500, 'requires_payment_method');
    await payment('live', 99_900, 'processing');
    await expectUse('test', march, 170_000);
    await expectUse('live', march, 99_900);

    // Succeeded in March: still counted, now as March's; the other fails and frees its room.
    await knex('payments').where({ id: first }).update({ status: 'succeeded', succeeded_at: march });
    await knex('payments').where({ id: second }).update({ status: 'failed' });
    await expectUse('test', march, 150_000);

    // A refund changes the status, not the use.
    await knex('payments').where({ id: first }).update({ status: 'partially_refunded', refunded_cents: 50_000 });
    await expectUse('test', march, 150_000);

    // April: March's successes no longer count; a payment still with the processor does, and it
    // counts in the month it succeeds in, 00:00 on 1 April in Colombo being April's.
    const late = await payment('test', 30_000, 'processing');
    await expectUse('test', aprilFirst, 30_000);
    await knex('payments').where({ id: late }).update({ status: 'succeeded', succeeded_at: aprilFirst });
    await expectUse('test', aprilFirst, 30_000);
    await expectUse('test', new Date(aprilFirst.getTime() - 1), 150_000);

    // A success moved to another instant of another month moves with it; a deleted payment leaves.
    await knex('payments').where({ id: late }).update({ succeeded_at: march });
    await expectUse('test', march, 180_000);
    await expectUse('test', aprilFirst, 0);
    await knex('payments').where({ id: first }).delete();
    await expectUse('test', march, 30_000);
    await expectUse('live', march, 99_900);
  });
});
