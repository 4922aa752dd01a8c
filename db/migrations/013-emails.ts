// Customer emails: every one is kept, whether or not SMTP_URL sends it (DESIGN.md, "Emails"),
// and `kasi emails` lists them newest first. One receipt per payment and one card_saved per card:
// a retried settlement keeps no second.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('emails', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id');
    t.text('mode').notNullable().checkIn(['test', 'live']);
    t.text('to').notNullable();
    t.text('kind').notNullable();
    t.text('locale').notNullable().checkIn(['en', 'si', 'ta']);
    t.text('subject').notNullable();
    t.text('text').notNullable();
    t.text('html').notNullable();
    // The payment, invoice, subscription or card it is about.
    t.text('object_id').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    // Delivery over SMTP: claimed by one sender at a time, then sent (or failed, and tried again).
    t.timestamp('claimed_at', { useTz: true }).nullable();
    t.timestamp('sent_at', { useTz: true }).nullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('last_error').nullable();
    t.index(['account_id', 'mode', 'id']);
  });
  await knex.raw(`create unique index emails_once on emails (kind, object_id) where kind in ('receipt', 'card_saved')`);
  await knex.raw('create index emails_unsent on emails (id) where sent_at is null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('emails');
}
