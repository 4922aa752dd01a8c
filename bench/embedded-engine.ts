// Embedded engine throughput and memory, on a checkout-lifetime-shaped workflow (a timer raced
// against a signal, then one activity). Targets on a 2-core machine: at least 500 workflows
// started and completed per second, at most 64 kB of heap per open workflow with 10,000 open.
import path from 'node:path';
import { EmbeddedEngine } from '../workers/embedded-engine/engine';
import { runAsCommand } from './command';
import { gcNote, settledHeapUsed } from './heap';

const workflowsPath = path.resolve(__dirname, '../test/fixtures/workflows/index.ts');
const LIFETIME_MS = 30 * 60_000;

async function throughput(count: number): Promise<number> {
  const engine = await EmbeddedEngine.create({ workflowsPath, activities: { record: async (label: string) => label }, clock: 'virtual', keepClosedHistory: false });
  const started = performance.now();
  for (let i = 0; i < count; i++) engine.start({ workflowType: 'checkoutLifetime', workflowId: `checkout/bench_${i}`, args: [`bench_${i}`, LIFETIME_MS] });
  await engine.runUntilIdle();
  // Half are paid by signal, half expire when their timer fires.
  await Promise.all(Array.from({ length: count / 2 }, (_, i) => engine.signal(`checkout/bench_${i * 2}`, 'paid', [`pay_${i}`])));
  await engine.advance(LIFETIME_MS);
  const seconds = (performance.now() - started) / 1000;
  if (engine.openWorkflowCount !== 0) throw new Error(`${engine.openWorkflowCount} workflows still open`);
  await engine.shutdown();
  return count / seconds;
}

async function heapPerOpenWorkflow(count: number): Promise<number> {
  const engine = await EmbeddedEngine.create({ workflowsPath, activities: { record: async (label: string) => label }, clock: 'virtual' });
  // One workflow first, so the shared sandbox and module caches are not counted per workflow.
  engine.start({ workflowType: 'checkoutLifetime', workflowId: 'checkout/warm', args: ['warm', LIFETIME_MS] });
  await engine.runUntilIdle();
  const before = settledHeapUsed();
  for (let i = 0; i < count; i++) engine.start({ workflowType: 'checkoutLifetime', workflowId: `checkout/open_${i}`, args: [`open_${i}`, LIFETIME_MS] });
  await engine.runUntilIdle();
  const after = settledHeapUsed();
  if (engine.openWorkflowCount !== count + 1) throw new Error(`expected ${count + 1} open workflows, found ${engine.openWorkflowCount}`);
  await engine.shutdown();
  return (after - before) / count;
}

export async function runEmbeddedEngineBench(): Promise<void> {
  await throughput(200); // warm-up: bundling and JIT
  // The median of three runs: one run on a shared 2-core machine swings by a fifth either way.
  const runs = [await throughput(2_000), await throughput(2_000), await throughput(2_000)].sort((a, b) => a - b);
  const perSecond = runs[1]!;
  const perWorkflow = await heapPerOpenWorkflow(10_000);
  console.log(`embedded engine: ${perSecond.toFixed(0)} checkout-shaped workflows started and completed per second, median of ${runs.map((r) => r.toFixed(0)).join(', ')} (target >= 500)`);
  console.log(`embedded engine: ${(perWorkflow / 1024).toFixed(1)} kB of heap per open workflow with 10,000 open (target <= 64 kB)${gcNote()}`);
}

if (require.main === module) runAsCommand(runEmbeddedEngineBench);
