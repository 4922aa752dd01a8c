// `npm run bench`: every benchmark the issues ask for, printed with its target.
import { benchDatabase } from './database';
import { runEmbeddedEngineBench } from './embedded-engine';
import { runPlatformBench } from './platform';
import { runCardChargeBench } from './cards';
import { runCheckoutBench } from './checkouts';
import { runPaymentReadBench } from './payments';
import { runRefundBench } from './refunds';
import { runWebhookBench } from './webhooks';
import { runBillingBench } from './billing';
import { runSubscriptionChangeBench } from './subscription-changes';
import { runAsCommand } from './command';

async function main(): Promise<void> {
  const database = await benchDatabase();
  try {
    console.log(`Kasi benchmarks on ${process.platform}/${process.arch}, Node ${process.version}, ${(await import('node:os')).cpus().length} cores`);
    await runPlatformBench(database);
    await runPaymentReadBench(database);
    await runCheckoutBench(database);
    await runRefundBench(database);
    await runCardChargeBench(database);
    await runWebhookBench(database);
    await runBillingBench(database);
    await runSubscriptionChangeBench(database);
    await runEmbeddedEngineBench();
  } finally {
    await database.close();
  }
}

runAsCommand(main);
