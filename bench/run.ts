// `npm run bench`: every benchmark the issues ask for, printed with its target. Names given after
// it run only those, in the usual order (`npm run bench -- payments checkouts`): for ratio runs of the
// benchmarks concerned, with the ones before them kept when what they leave behind is the question.
import { benchDatabase, type BenchDatabase } from './database';
import { runEmbeddedEngineBench } from './embedded-engine';
import { runPlatformBench } from './platform';
import { runCardChargeBench } from './cards';
import { runCheckoutBench } from './checkouts';
import { runPaymentReadBench } from './payments';
import { runRefundBench } from './refunds';
import { runWebhookBench } from './webhooks';
import { runBillingBench } from './billing';
import { runSubscriptionChangeBench } from './subscription-changes';
import { runUsageBench } from './usage';
import { runAsCommand } from './command';

const benchmarks: [string, (database: BenchDatabase) => Promise<void>][] = [
  ['platform', runPlatformBench],
  ['payments', runPaymentReadBench],
  ['checkouts', runCheckoutBench],
  ['refunds', runRefundBench],
  ['cards', runCardChargeBench],
  ['webhooks', runWebhookBench],
  ['billing', runBillingBench],
  ['subscription-changes', runSubscriptionChangeBench],
  ['usage', runUsageBench],
  ['embedded-engine', () => runEmbeddedEngineBench()],
];

async function main(): Promise<void> {
  const names = process.argv.slice(2);
  const unknown = names.filter((name) => !benchmarks.some(([known]) => known === name));
  if (unknown.length > 0) throw new Error(`no benchmark named ${unknown.join(', ')}: the names are ${benchmarks.map(([name]) => name).join(', ')}`);
  const database = await benchDatabase();
  try {
    console.log(`Kasi benchmarks on ${process.platform}/${process.arch}, Node ${process.version}, ${(await import('node:os')).cpus().length} cores`);
    for (const [name, run] of benchmarks) if (names.length === 0 || names.includes(name)) await run(database);
  } finally {
    await database.close();
  }
}

runAsCommand(main);
