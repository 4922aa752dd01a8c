// One facade for workflow tests. By default the embedded engine in virtual time; with
// KASI_TEMPORAL_TEST_SERVER=<path to Temporal's time-skipping test server binary> the same tests
// run on TestWorkflowEnvironment.createTimeSkipping with that binary. Either way every history can
// be replayed on Temporal's real Core (Worker.runReplayHistory).
import type { ActivityFunction } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Runtime, Worker } from '@temporalio/worker';
import { createEmbeddedPort } from '../../orchestration/embedded';
import { TASK_QUEUE } from '../../orchestration/ids';
import type { OrchestrationPort } from '../../orchestration/port';
import { createTemporalPort } from '../../orchestration/temporal';
import { EmbeddedEngine } from '../../workers/embedded-engine/engine';
import type { EngineOptions } from '../../workers/embedded-engine/engine';
import { bundleWorkflows } from '../../workers/embedded-engine/workflow-bundle';

export interface WorkflowEnv {
  readonly kind: 'embedded' | 'time-skipping-server';
  /** The same port the API uses. */
  readonly port: OrchestrationPort;
  /** Waits for the workflow's result, skipping time while it waits. */
  result<T = unknown>(workflowId: string): Promise<T>;
  /** Skips time forward, running whatever falls due. */
  sleep(ms: number): Promise<void>;
  now(): Promise<number>;
  /** The workflow's history, as a server holds it (latest run). */
  history(workflowId: string): Promise<temporal.api.history.v1.IHistory>;
  /** Replays the workflow's history on Temporal's Core with this env's workflows (or others). */
  replay(workflowId: string, workflowsPath?: string): Promise<void>;
  teardown(): Promise<void>;
}

export interface WorkflowEnvOptions {
  workflowsPath: string;
  activities: Record<string, ActivityFunction>;
  /** Embedded engine only: extra options (hung-activity grace, logging). */
  engine?: Partial<EngineOptions>;
}

let runtimeInstalled = false;

/** Core's own log lines stay quiet unless something is wrong. */
function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({ logger: { log() {}, trace() {}, debug() {}, info() {}, warn: (m: string) => console.warn(m), error: (m: string) => console.error(m) } as never });
}

export async function replayHistory(history: temporal.api.history.v1.IHistory, workflowsPath: string): Promise<void> {
  quietRuntime();
  const bundle = await bundleWorkflows(workflowsPath);
  await Worker.runReplayHistory({ workflowBundle: { code: bundle.code } }, history);
}

export async function createWorkflowEnv(options: WorkflowEnvOptions): Promise<WorkflowEnv> {
  const serverPath = process.env.KASI_TEMPORAL_TEST_SERVER;
  return serverPath ? createServerEnv(serverPath, options) : createEmbeddedEnv(options);
}

async function createEmbeddedEnv(options: WorkflowEnvOptions): Promise<WorkflowEnv> {
  const engine = await EmbeddedEngine.create({ clock: 'virtual', ...options.engine, workflowsPath: options.workflowsPath, activities: options.activities });
  return {
    kind: 'embedded',
    port: createEmbeddedPort(engine),
    result: (workflowId) => engine.result(workflowId),
    sleep: (ms) => engine.advance(ms),
    now: async () => engine.clock.now(),
    history: async (workflowId) => engine.exportHistory(workflowId),
    replay: (workflowId, workflowsPath = options.workflowsPath) => replayHistory(engine.exportHistory(workflowId), workflowsPath),
    teardown: () => engine.shutdown(),
  };
}

async function createServerEnv(path: string, options: WorkflowEnvOptions): Promise<WorkflowEnv> {
  quietRuntime();
  const env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path } } });
  const bundle = await bundleWorkflows(options.workflowsPath);
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: TASK_QUEUE,
    workflowBundle: { code: bundle.code },
    activities: options.activities,
  });
  const running = worker.run();
  const handle = (workflowId: string) => env.client.workflow.getHandle(workflowId);
  return {
    kind: 'time-skipping-server',
    port: createTemporalPort(env.client),
    result: (workflowId) => handle(workflowId).result(),
    sleep: (ms) => env.sleep(ms),
    now: () => env.currentTimeMs(),
    history: (workflowId) => handle(workflowId).fetchHistory(),
    replay: async (workflowId, workflowsPath = options.workflowsPath) => replayHistory(await handle(workflowId).fetchHistory(), workflowsPath),
    async teardown() {
      worker.shutdown();
      await running;
      await env.teardown();
    },
  };
}
