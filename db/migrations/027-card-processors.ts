// The card processor an account's payments go to, per mode (DESIGN.md "Live card processor"): the
// bank's Mastercard Gateway profile (its URL and merchant id), with the API password and the
// notification secret sealed with the secret key (db/secret-box.ts). A mode without a row takes
// the built-in sandbox (test) or no payments (live).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('card_processors', (t) => {
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable().checkIn(['test', 'live']);
    t.text('processor').notNullable().checkIn(['mastercard_gateway']);
    t.text('gateway_url').notNullable();
    t.text('merchant_id').notNullable();
    t.text('api_password_box').notNullable();
    t.text('notification_secret_box').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.primary(['account_id', 'mode']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('card_processors');
}
