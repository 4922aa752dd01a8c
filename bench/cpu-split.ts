// Where the CPU of one request goes: the server's main thread, its other threads (V8's compiler
// and garbage collector), PostgreSQL and the load generator, for POST /v1/checkouts on Kasi and
// the bare server's insert. On two cores their sum, not one process, caps the rate: the figures
// explain a ratio that `npm run bench` reports. Diagnostic, not part of `npm run bench`.
// Run: node --import tsx bench/cpu-split.ts
import { readdirSync, readFileSync } from 'node:fs';
import { createMerchant } from '../db/merchants';
import { benchDatabase } from './database';
import { load, startServer, stopServer } from './load';
import { runAsCommand } from './command';

const SECONDS = 4;

/** CPU seconds (user and system) of a process's threads: the main thread first. */
function threadSeconds(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`)
    .sort((a, b) => Number(a) - Number(b))
    .map((tid) => {
      const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100;
    });
}

function postgresSeconds(): number {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') total += threadSeconds(Number(pid)).reduce((a, b) => a + b, 0);
    } catch {
      // The process ended between the listing and the read.
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
  let emails = 0;
  const contestants = [
    { label: 'Kasi POST /v1/checkouts', pid: kasi.child.pid!, url: `${kasi.url}/v1/checkouts`, key: keys.pk_test, body: () => JSON.stringify({ amountCents: 350000, description: 'Bench tea' }) },
    { label: 'bare insert', pid: bare.child.pid!, url: `${bare.url}/v1/customers`, key: keys.sk_test, body: () => JSON.stringify({ email: `split-${++emails}@example.com` }) },
  ];
  try {
    // The first round warms both servers up; the second is reported.
    for (const round of [1, 2]) {
      for (const c of contestants) {
        const before = { threads: threadSeconds(c.pid), postgres: postgresSeconds(), load: process.cpuUsage() };
        const figures = await load(c.label, { url: c.url, method: 'POST', headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' }, body: c.body, idempotent: true, seconds: SECONDS, connections: 10 });
        if (round === 1) continue;
        const requests = figures.requestsPerSecond * SECONDS;
        const perRequest = (seconds: number) => ((seconds * 1000) / requests).toFixed(2);
        const threads = threadSeconds(c.pid).map((s, i) => s - (before.threads[i] ?? 0));
        const loadCpu = process.cpuUsage(before.load);
        console.log(
          `${c.label}: ${figures.requestsPerSecond.toFixed(0)} req/s; CPU ms per request: server main thread ${perRequest(threads[0]!)}, ` +
            `other server threads ${perRequest(threads.slice(1).reduce((a, b) => a + b, 0))}, postgres ${perRequest(postgresSeconds() - before.postgres)}, ` +
            `load generator ${perRequest((loadCpu.user + loadCpu.system) / 1e6)}`,
        );
      }
    }
  } finally {
    await stopServer(kasi.child);
    await stopServer(bare.child);
    await database.close();
  }
}

runAsCommand(main);
