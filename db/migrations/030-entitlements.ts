// Entitlements (DESIGN.md "Adjustments and usage: the resources"): features a merchant's app
// checks by lookup key, the features each product grants, and the last summary of each customer's
// active entitlements, so entitlements.active_entitlement_summary.updated is sent only when that
// set really changes.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('entitlement_features', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable().checkIn(['test', 'live']);
    t.text('name').notNullable();
    t.text('lookup_key').notNullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.timestamp('created_at', { useTz: true }).notNullable();
    // One feature per lookup key, account and mode, whatever races to create it (409 feature_exists).
    t.unique(['account_id', 'mode', 'lookup_key']);
    t.index(['account_id', 'mode', 'id']);
  });
  await knex.schema.createTable('product_features', (t) => {
    t.text('id').primary();
    t.text('product_id').notNullable().references('products.id');
    t.text('feature_id').notNullable().references('entitlement_features.id');
    t.timestamp('created_at', { useTz: true }).notNullable();
    // A feature is attached to a product once; the product's list, newest first.
    t.unique(['product_id', 'feature_id']);
    t.index(['product_id', 'id']);
  });
  await knex.schema.createTable('entitlement_summaries', (t) => {
    t.text('customer_id').primary().references('customers.id');
    t.specificType('lookup_keys', 'text[]').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
  });
  // From a product to the customers subscribed to it, when its features change.
  await knex.raw('create index prices_product on prices (product_id)');
  await knex.raw('create index subscription_items_price on subscription_items (price_id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index subscription_items_price');
  await knex.raw('drop index prices_product');
  await knex.schema.dropTable('entitlement_summaries');
  await knex.schema.dropTable('product_features');
  await knex.schema.dropTable('entitlement_features');
}
