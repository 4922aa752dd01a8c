// Servers keep the keys they have seen in memory (db/active-key-cache.ts). Any change to a key or
// to an account, from whichever process or tool, tells them to forget: a statement trigger sends
// NOTIFY, which Postgres delivers when the change commits.
import type { Knex } from 'knex';
import { KEY_CHANGES_CHANNEL } from '../active-key-cache';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create function kasi_key_changes_notify() returns trigger language plpgsql as $$
    begin perform pg_notify('${KEY_CHANGES_CHANNEL}', ''); return null; end $$`);
  for (const table of ['api_keys', 'accounts']) {
    await knex.raw(`create trigger ${table}_changed after update or delete or truncate on ${table} for each statement execute function kasi_key_changes_notify()`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['api_keys', 'accounts']) await knex.raw(`drop trigger ${table}_changed on ${table}`);
  await knex.raw('drop function kasi_key_changes_notify()');
}
