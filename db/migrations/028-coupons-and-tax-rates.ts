// Coupons and tax rates (DESIGN.md "Adjustments and usage: the resources"), and what a subscription
// keeps of them: its discount (the coupon's terms, copied when applied, with when it began and
// ends) and its tax rates' terms. Both resources are never edited, only archived, and archiving
// leaves running discounts and taxes as they are, so a copy is exact and a renewal reads nothing
// more than its subscription's row.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('coupons', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable().checkIn(['test', 'live']);
    t.text('name').nullable();
    t.decimal('percent_off', 5, 2).nullable();
    t.bigInteger('amount_off_cents').nullable();
    t.text('duration').notNullable().checkIn(['once', 'repeating', 'forever']);
    t.integer('duration_in_months').nullable();
    t.integer('max_redemptions').nullable();
    // Counted by the conditional UPDATE that applies the coupon (db/coupons.ts redeemCoupon).
    t.integer('times_redeemed').notNullable().defaultTo(0);
    t.timestamp('redeem_by', { useTz: true }).nullable();
    t.timestamp('archived_at', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['account_id', 'mode', 'id']);
  });
  await knex.schema.createTable('tax_rates', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable().checkIn(['test', 'live']);
    t.text('display_name').notNullable();
    t.decimal('percentage', 7, 4).notNullable();
    t.boolean('inclusive').notNullable();
    t.text('description').nullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.timestamp('archived_at', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['account_id', 'mode', 'id']);
  });
  await knex.schema.alterTable('subscriptions', (t) => {
    // {couponId, start, end, duration, percentOff, amountOffCents} (domain/coupons.ts SubscriptionDiscount).
    t.jsonb('discount').nullable();
    // [{id, percentage, inclusive}], in the order given.
    t.jsonb('tax_rates').notNullable().defaultTo('[]');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('subscriptions', (t) => {
    t.dropColumn('discount');
    t.dropColumn('tax_rates');
  });
  await knex.schema.dropTable('tax_rates');
  await knex.schema.dropTable('coupons');
}
