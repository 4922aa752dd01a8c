// Diagnostic (not part of npm run bench): CPU seconds per request spent in the server process,
// in PostgreSQL and in the load generator, for POST /v1/checkouts and the bare insert.
import { readFileSync, readdirSync } from 'node:fs';
import { createMerchant } from '../db/merchants';
import { benchDatabase } from './database';
import { load, startServer, stopServer } from './load';

function cpuOf(pid: number, which: 'user' | 'system' | 'both' = 'both'): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const user = Number(fields[11]) / 100;
  const system = Number(fields[12]) / 100;
  return which === 'user' ? user : which === 'system' ? system : user + system;
}
function postgresCpu(): number {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') total += cpuOf(Number(pid));
    } catch {
      /* gone */
    }
  }
  return total;
}

async function main(): Promise<void> {
  const database = await benchDatabase();
  const { keys } = await createMerchant(database.knex, { name: 'Bench', now: new Date() });
  const env = { DATABASE_URL: database.url };
  const kasi = await startServer('servers/kasi.ts', env);
  const bare = await startServer('servers/bare.ts', env);
  let n = 0;
  const runs = [
    { label: 'kasi checkouts', pid: kasi.child.pid!, url: `${kasi.url}/v1/checkouts`, key: keys.pk_test, body: () => JSON.stringify({ amountCents: 350000, description: 'Bench tea', reference: 'bench' }) },
    { label: 'bare insert', pid: bare.child.pid!, url: `${bare.url}/v1/customers`, key: keys.sk_test, body: () => JSON.stringify({ email: `split-${++n}@example.com` }) },
  ];
  for (const round of [1, 2]) {
    for (const r of runs) {
      const before = { server: cpuOf(r.pid), sys: cpuOf(r.pid, 'system'), pg: postgresCpu(), self: process.cpuUsage() };
      const f = await load(r.label, { url: r.url, method: 'POST', headers: { authorization: `Bearer ${r.key}`, 'content-type': 'application/json' }, body: r.body, idempotent: true, seconds: 4, connections: 10 });
      const count = f.requestsPerSecond * 4;
      const self = process.cpuUsage(before.self);
      const ms = (s: number) => ((s * 1000) / count).toFixed(2);
      if (round === 2) console.log(`${r.label}: ${f.requestsPerSecond.toFixed(0)} req/s; CPU ms per request: server ${ms(cpuOf(r.pid) - before.server)} (system ${ms(cpuOf(r.pid, 'system') - before.sys)}), postgres ${ms(postgresCpu() - before.pg)}, load ${ms((self.user + self.system) / 1e6)}`);
    }
  }
  for (const tid of readdirSync(`/proc/${kasi.child.pid}/task`)) {
    const stat = readFileSync(`/proc/${kasi.child.pid}/task/${tid}/stat`, 'utf8');
    const comm = readFileSync(`/proc/${kasi.child.pid}/task/${tid}/comm`, 'utf8').trim();
    const f = stat.split(') ')[1]!.split(' ');
    console.log(`  thread ${tid} ${comm}: user ${Number(f[11]) / 100}s system ${Number(f[12]) / 100}s`);
  }
  await stopServer(kasi.child);
  await stopServer(bare.child);
  await database.close();
}

main().then(() => process.exit(0), (err: unknown) => { console.error(err); process.exit(1); });
