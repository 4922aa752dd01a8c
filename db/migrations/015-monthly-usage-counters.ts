// The monthly limit's count kept as running totals, so that taking a payment's room reads two rows
// instead of summing the month's payments under the account's lock (a sum that grew with every
// payment and, held under that lock, capped saved-card charges at about 200 a second). A trigger on
// `payments` keeps them, in the transaction that changes the payment, so every way a payment moves
// (Pay, the saved-card charge, settlement, expiry, a seed straight into the table) counts alike:
// - `processing_usage`: the cents of an account's payments currently with the processor (status
//   `processing`), whatever month they started in;
// - `monthly_succeeded`: the cents of its payments that succeeded in each Sri Lankan month (any
//   status but `processing` with `succeeded_at` in the month: refunds do not free room).
// The month's use (db/monthly-usage.ts) is their sum for the month: exactly what the sum over
// payments gave.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('processing_usage', (t) => {
    t.text('account_id').notNullable();
    t.text('mode').notNullable();
    t.bigInteger('cents').notNullable();
    t.primary(['account_id', 'mode']);
  });
  await knex.schema.createTable('monthly_succeeded', (t) => {
    t.text('account_id').notNullable();
    t.text('mode').notNullable();
    // Midnight on the month's 1st, Sri Lankan time (UTC+05:30, as domain/time.ts colomboMonth).
    t.timestamp('month_start', { useTz: true }).notNullable();
    t.bigInteger('cents').notNullable();
    t.primary(['account_id', 'mode', 'month_start']);
  });
  await knex.raw(`
    create function colombo_month_start(at timestamptz) returns timestamptz language sql immutable as $$
      select (date_trunc('month', (at at time zone 'UTC') + interval '5 hours 30 minutes') - interval '5 hours 30 minutes') at time zone 'UTC'
    $$`);
  await knex.raw(`
    create function payments_count_usage() returns trigger language plpgsql as $$
    declare
      was_processing bigint := 0;
      is_processing bigint := 0;
      was_succeeded bigint := 0;
      is_succeeded bigint := 0;
      was_at timestamptz;
      is_at timestamptz;
      row_account text;
      row_mode text;
    begin
      if tg_op <> 'INSERT' then
        row_account := old.account_id; row_mode := old.mode;
        if old.status = 'processing' then was_processing := old.amount_cents;
        elsif old.succeeded_at is not null then was_succeeded := old.amount_cents; was_at := old.succeeded_at; end if;
      end if;
      if tg_op <> 'DELETE' then
        row_account := new.account_id; row_mode := new.mode;
        if new.status = 'processing' then is_processing := new.amount_cents;
        elsif new.succeeded_at is not null then is_succeeded := new.amount_cents; is_at := new.succeeded_at; end if;
      end if;
      if is_processing <> was_processing then
        insert into processing_usage as u values (row_account, row_mode, is_processing - was_processing)
          on conflict (account_id, mode) do update set cents = u.cents + excluded.cents;
      end if;
      if was_succeeded <> 0 and (is_at is distinct from was_at or is_succeeded <> was_succeeded) then
        update monthly_succeeded set cents = cents - was_succeeded
          where account_id = row_account and mode = row_mode and month_start = colombo_month_start(was_at);
        was_succeeded := 0;
      end if;
      if is_succeeded <> 0 and was_succeeded = 0 then
        insert into monthly_succeeded as u values (row_account, row_mode, colombo_month_start(is_at), is_succeeded)
          on conflict (account_id, mode, month_start) do update set cents = u.cents + excluded.cents;
      end if;
      return null;
    end
    $$`);
  await knex.raw(`
    create trigger payments_count_usage after insert or delete or update of status, succeeded_at, amount_cents on payments
      for each row execute function payments_count_usage()`);
  // What the payments already written count for.
  await knex.raw(`insert into processing_usage select account_id, mode, sum(amount_cents) from payments where status = 'processing' group by 1, 2`);
  await knex.raw(`
    insert into monthly_succeeded select account_id, mode, colombo_month_start(succeeded_at), sum(amount_cents) from payments
      where status <> 'processing' and succeeded_at is not null group by 1, 2, 3`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger payments_count_usage on payments');
  await knex.raw('drop function payments_count_usage()');
  await knex.raw('drop function colombo_month_start(timestamptz)');
  await knex.schema.dropTable('monthly_succeeded');
  await knex.schema.dropTable('processing_usage');
}
