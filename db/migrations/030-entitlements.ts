// Entitlements (DESIGN.md "Adjustments and usage: the resources"): features a merchant's app
// checks by lookup key (archived with `active` false), the features each product grants, and the last summary of each customer's
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
    t.index(['account_id', 'mode', 'id']);
    t.index(['account_id', 'mode', 'active', 'id']);
  });
  // One active feature per lookup key, account and mode, whatever races to create it (409
  // feature_exists); an archived feature's lookup key may name a new one.
  await knex.raw('create unique index entitlement_features_lookup_key on entitlement_features (account_id, mode, lookup_key) where active');
  await knex.schema.createTable('product_features', (t) => {
    t.text('id').primary();
    t.text('product_id').notNullable().references('products.id');
    t.text('feature_id').notNullable().references('entitlement_features.id');
    t.timestamp('created_at', { useTz: true }).notNullable();
    // A feature is attached to a product once; the product's list, newest first.
    t.unique(['product_id', 'feature_id']);
    t.index(['product_id', 'id']);
    // From a feature to its products, when it is archived or brought back.
    t.index(['feature_id']);
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
