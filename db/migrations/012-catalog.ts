// The catalog: products (what a merchant sells) and their prices (how much, how often, by which
// scheme). Prices are never edited: a new price replaces an old one, which is archived.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('products', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable().checkIn(['test', 'live']);
    t.text('name').notNullable();
    t.text('description').nullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    // The list, newest first, all or only the active (or archived) ones.
    t.index(['account_id', 'mode', 'id']);
    t.index(['account_id', 'mode', 'active', 'id']);
  });
  await knex.schema.createTable('prices', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable().checkIn(['test', 'live']);
    t.text('product_id').notNullable().references('products.id');
    // 0 for tiered prices, whose amounts are in `tiers`.
    t.bigInteger('unit_amount_cents').notNullable();
    t.text('interval').notNullable().checkIn(['day', 'week', 'month', 'year']);
    t.integer('interval_count').notNullable();
    t.text('nickname').nullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.text('billing_scheme').notNullable().checkIn(['per_unit', 'package', 'tiered']);
    t.text('tiers_mode').nullable().checkIn(['graduated', 'volume']);
    t.jsonb('tiers').nullable();
    t.integer('package_size').nullable();
    t.text('usage_type').notNullable().checkIn(['licensed', 'metered']);
    t.text('meter_id').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('archived_at', { useTz: true }).nullable();
    t.index(['account_id', 'mode', 'id']);
    t.index(['account_id', 'mode', 'active', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('prices');
  await knex.schema.dropTable('products');
}
