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

/** CPU seconds (user and system) of a process's threads by thread name: the main thread first. */
function threadSeconds(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`).sort((a, b) => Number(a) - Number(b))) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const name = tid === String(pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    byName.set(name, (byName.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) / 100);
  }
  return byName;
}

const total = (threads: Map<string, number>) => [...threads.values()].reduce((a, b) => a + b, 0);

function postgresSeconds(): number {
  let sum = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') sum += total(threadSeconds(Number(pid)));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return sum;
}

async function main(): Promise<void> {
  const database = await benchDatabase();
  const { keys } = await createMerchant(database.knex, { name: 'Bench', now: new Date() });
  const env = database.env;
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
        const threads = new Map([...threadSeconds(c.pid)].map(([name, s]) => [name, s - (before.threads.get(name) ?? 0)]));
        const main = threads.get('main') ?? 0;
        threads.delete('main');
        const loadCpu = process.cpuUsage(before.load);
        const others = [...threads].filter(([, s]) => s > 0).map(([name, s]) => `${name} ${perRequest(s)}`).join(', ');
        console.log(
          `${c.label}: ${figures.requestsPerSecond.toFixed(0)} req/s; CPU ms per request: server main thread ${perRequest(main)}, ` +
            `other server threads ${perRequest(total(threads))} (${others}), postgres ${perRequest(postgresSeconds() - before.postgres)}, ` +
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
