// After a full payment, the card number and CVV are nowhere in the service: not in any table
// (the sandbox's own included), not in the logs of a server running at trace level, not in any
// page the service served.
import assert from 'node:assert/strict';
import { postPay } from './hosted-flow';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { connect } from '../../db/connection';
import { createMerchant } from '../../db/merchants';
import { freshDatabase } from '../support/database';

const CARD = '5123450000000008';
const ROOT = path.resolve(__dirname, '../..');

describe('card data never reaches the service', function () {
  this.timeout(60_000);

  it('leaves no card number or CVV in any table or log line after a full payment', async () => {
    const database = await freshDatabase();
    const knex = connect(database.url, 2);
    const logs: string[] = [];
    const child = spawn(process.execPath, ['--import', 'tsx', 'workers/start.ts'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: database.url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'trace' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const base = await new Promise<string>((resolve, reject) => {
        const onData = (chunk: Buffer) => {
          logs.push(chunk.toString());
          const m = /listening on (http:\/\/[^\s]+)/.exec(logs.join(''));
          if (m) resolve(m[1] as string);
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
        child.once('exit', (code) => reject(new Error(`server exited ${code}: ${logs.join('')}`)));
      });
      const { keys } = await createMerchant(knex, { name: 'Lanka Tea', now: new Date() });
      const created = await fetch(`${base}/v1/checkouts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.pk_test}`, 'content-type': 'application/json', 'idempotency-key': 'card-data-1' },
        body: JSON.stringify({ amountCents: 350000, description: 'Tea' }),
      });
      const checkout = (await created.json()) as { id: string; url: string };
      const pages: string[] = [await (await fetch(checkout.url)).text()];
      const post = async (url: string, form: Record<string, string>) => {
        const res = await fetch(url, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
        pages.push(await res.text());
        return new URL(res.headers.get('location') as string, base).toString();
      };
      const paid = await postPay(checkout.url, { name: 'Nimal Perera', email: 'nimal@example.com' });
      pages.push(paid.text);
      const session = new URL(paid.location as string, base);
      // A wrong CVV first: the sandbox's answer must not echo the number back either.
      await post(`${session.origin}${session.pathname}/card${session.search}`, { number: CARD, expiry: '01/39', cvv: '999' });
      const threeDs = await post(`${session.origin}${session.pathname}/card${session.search}`, { number: CARD, expiry: '01/39', cvv: '100' });
      const back = await post(threeDs, { result: 'pass' });
      const landed = await fetch(back);
      pages.push(await landed.text());
      const payment = await knex('payments').where({ checkout_id: checkout.id }).first();
      assert.equal(payment.status, 'succeeded');

      const tables = (await knex('pg_tables').where({ schemaname: 'public' }).pluck('tablename')) as string[];
      assert.ok(tables.includes('payments') && tables.includes('sandbox_sessions'));
      for (const table of tables) {
        const rows = await knex(table).select(knex.raw('t::text as row')).from(knex.raw('?? as t', [table]));
        for (const { row } of rows as unknown as { row: string }[]) {
          assert.ok(!row.replace(/\D/g, '').includes(CARD), `${table} holds the card number`);
        }
      }
      assert.ok(logs.join('').length > 0, 'the server logged at trace level');
      assert.ok(!logs.join('').replace(/\D/g, '').includes(CARD), 'a log line holds the card number');
      assert.ok(!logs.join('').includes('cvv=100'), 'a log line holds the CVV');
      // The sandbox's card page lists its test cards (in <small>); nothing else may show the number.
      for (const page of pages) assert.ok(!page.replace(/<small>[^<]*<\/small>/g, '').replace(/\s/g, '').includes(CARD), 'a page shows the card number');
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      await knex.destroy();
      await database.drop();
    }
  });
});
