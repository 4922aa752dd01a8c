// One row about the installation as a whole, shared by every process on the database: the
// fingerprint of the key that seals stored secrets (so a process with another key refuses to run
// instead of sealing what the others cannot open), and the webhook loopback rule the server
// decided (so the CLI applies the server's rule, not one from its own environment).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('installation', (t) => {
    t.boolean('id').primary().defaultTo(true);
    t.text('secret_key_fingerprint').notNullable();
    t.boolean('webhook_allow_loopback');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
  });
  await knex.raw('alter table installation add constraint installation_one_row check (id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('installation');
}
