// The baseline: a bare Koa + pg server doing the same queries as Kasi for the benchmarked
// requests, with none of the platform around them (no trace id, error body, CORS, rate limit,
// validation, router or view: rows are answered as read). Started by bench/load.ts with
// DATABASE_URL and a port.
import { hash, randomUUID } from 'node:crypto';
import Koa from 'koa';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = new Koa();
// The load generator cuts its connections at the end of a round; that is not worth a stack trace.
app.silent = true;

// Like Kasi, it keeps the keys it has seen in memory (without Kasi's invalidation on change, which
// costs nothing per request), so a key costs one query per server, not one per request.
const keys = new Map<string, { id: string; mode: string; account_id: string; name: string; status: string; plan: string }>();

async function keyAccount(header: string | undefined) {
  const keyHash = hash('sha256', header?.slice(7) ?? '');
  const kept = keys.get(keyHash);
  if (kept) return kept;
  const { rows } = await pool.query(
    `select k.id, k.mode, a.id as account_id, a.name, a.status, a.plan from api_keys k join accounts a on a.id = k.account_id
     where k.key_hash = $1 and k.revoked_at is null and (k.expires_at is null or k.expires_at > $2)`,
    [keyHash, new Date()],
  );
  if (rows[0]) keys.set(keyHash, rows[0]);
  return rows[0];
}

app.use(async (ctx) => {
  const key = await keyAccount(ctx.get('authorization'));
  if (!key) {
    ctx.status = 401;
    return;
  }
  if (ctx.method === 'GET' && ctx.path === '/v1/account') {
    const { rows } = await pool.query(
      `select coalesce(sum(amount_cents), 0)::bigint as used from payments where account_id = $1 and mode = $2
       and (status = 'processing' or (succeeded_at >= $3 and succeeded_at < $4))`,
      [key.account_id, key.mode, new Date(Date.now() - 864e5), new Date()],
    );
    ctx.body = { object: 'account', id: key.account_id, name: key.name, status: key.status, plan: key.plan, usedCents: Number(rows[0].used) };
    return;
  }
  if (ctx.method === 'GET' && ctx.path.startsWith('/v1/payments/')) {
    const { rows } = await pool.query('select * from payments where id = $1', [ctx.path.slice('/v1/payments/'.length)]);
    const row = rows[0];
    if (!row || row.account_id !== key.account_id || row.mode !== key.mode) {
      ctx.status = 404;
      return;
    }
    ctx.body = row;
    return;
  }
  if (ctx.method === 'GET' && ctx.path === '/v1/payments') {
    const limit = Number(ctx.query.limit ?? 25);
    const { rows } = await pool.query('select * from payments where account_id = $1 and mode = $2 order by id desc limit $3', [key.account_id, key.mode, limit + 1]);
    const data = rows.slice(0, limit);
    ctx.body = { object: 'list', data, hasMore: rows.length > limit, nextCursor: rows.length > limit ? data[data.length - 1].id : null };
    return;
  }
  if (ctx.method === 'POST' && ctx.path === '/v1/customers') {
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString()) as { email: string };
    const ik = ctx.get('idempotency-key');
    const lock = randomUUID();
    const now = new Date();
    await pool.query(
      `insert into idempotency_keys (account_id, mode, key, fingerprint, lock_token, locked_at, created_at) values ($1, $2, $3, $4, $5, $6, $6)
       on conflict (account_id, mode, key) do nothing`,
      [key.account_id, key.mode, ik, 'f', lock, now],
    );
    const client = await pool.connect();
    try {
      await client.query('begin');
      const { rows } = await client.query(
        `insert into customers (id, account_id, mode, email, locale, credit_balance_cents, created_at, updated_at)
         values ($1, $2, $3, $4, 'en', 0, $5, $5) on conflict (account_id, mode, lower(email)) do update set updated_at = $5 returning *`,
        [`cus_${randomUUID().replace(/-/g, '').slice(0, 24)}`, key.account_id, key.mode, body.email, now],
      );
      await client.query('update idempotency_keys set response_status = 201, response_body = $4 where account_id = $1 and mode = $2 and key = $3', [
        key.account_id,
        key.mode,
        ik,
        JSON.stringify(rows[0]),
      ]);
      await client.query('commit');
      ctx.status = 201;
      ctx.body = rows[0];
    } finally {
      client.release();
    }
    return;
  }
  ctx.status = 404;
});

const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
});
// A normal exit on SIGTERM, so a --cpu-prof profile is written.
process.once('SIGTERM', () => process.exit(0));
