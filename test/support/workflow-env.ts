// One facade for workflow tests, over either engine: the embedded engine in virtual time, or
// Temporal's time-skipping test server (TestWorkflowEnvironment.createTimeSkipping with the binary
// scripts/install-temporal.sh installs; KASI_TEMPORAL_TEST_SERVER names another). Suites run on
// both, one spec file per engine (see skipWithoutTestServer). Either way every history can be
// replayed on Temporal's real Core (Worker.runReplayHistory).
import { IllegalStateError } from '@temporalio/common';
import type { ActivityFunction } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { createEmbeddedPort } from '../../orchestration/embedded';
import { ACCOUNT_ID_ATTRIBUTE, MODE_ATTRIBUTE, TASK_QUEUE } from '../../orchestration/ids';
import type { OrchestrationPort } from '../../orchestration/port';
import { createTemporalPort } from '../../orchestration/temporal';
import { EmbeddedEngine } from '../../workers/embedded-engine/engine';
import type { EngineOptions } from '../../workers/embedded-engine/engine';
import { bundleWorkflows } from '../../workers/embedded-engine/workflow-bundle';
import { missingToolMessage, toolPath } from '../../workers/tools';

export type WorkflowEngineKind = 'embedded' | 'time-skipping-server';

export interface WorkflowEnv {
  readonly kind: WorkflowEngineKind;
  /** The same port the API uses. */
  readonly port: OrchestrationPort;
  /** Waits for the workflow's result, skipping time while it waits. */
  result<T = unknown>(workflowId: string): Promise<T>;
  /** Skips time forward, running whatever falls due. */
  sleep(ms: number): Promise<void>;
  /**
   * The engine's time. On the server it runs on in real time between skips, and a skip may pass
   * far beyond a test's own timers (the server skips to whatever is due next once a workflow closes):
   * compare times recorded in history, or read inside an activity, not across result().
   */
  now(): Promise<number>;
  /** The workflow's history, as a server holds it (latest run, or the run `runId`). */
  history(workflowId: string, runId?: string): Promise<temporal.api.history.v1.IHistory>;
  /** The search attributes the engine keeps for the workflow, by name. */
  searchAttributes(workflowId: string): Promise<Record<string, unknown>>;
  /** Replays the workflow's history on Temporal's Core with this env's workflows (or others). */
  replay(workflowId: string, workflowsPath?: string): Promise<void>;
  teardown(): Promise<void>;
}

export interface WorkflowEnvOptions {
  workflowsPath: string;
  activities: Record<string, ActivityFunction>;
  /** Which engine runs the workflows: the embedded engine unless stated. */
  on?: WorkflowEngineKind;
  /** Embedded engine only: extra options (hung-activity grace, logging). */
  engine?: Partial<EngineOptions>;
}

/**
 * The worker's and Core's log lines show only errors: the scenarios fail activities and workflows
 * on purpose (logged at warn), and Core warns at every worker start that the test server does not
 * advertise a capability of newer servers. The runtime is per process and a mocha worker process
 * runs several files: one before this may have installed it already.
 */
function quietRuntime(): void {
  try {
    Runtime.install({
      logger: new DefaultLogger('ERROR', (entry) => console.error(`${entry.level}: ${entry.message}`)),
      telemetryOptions: { logging: { forward: {}, filter: { core: 'ERROR', other: 'ERROR' } } },
    });
  } catch (err) {
    if (!(err instanceof IllegalStateError)) throw err;
  }
}

/**
 * Replays a history on Core. Pass the workflow id the history belongs to: a history from Temporal's
 * test server does not record it (newer servers do, in the started event), and Core replays with
 * the id 'fake' otherwise, so a child id derived from the workflow's own id would not match.
 */
export async function replayHistory(history: temporal.api.history.v1.IHistory, workflowsPath: string, workflowId?: string): Promise<void> {
  quietRuntime();
  const bundle = await bundleWorkflows(workflowsPath);
  await Worker.runReplayHistory({ workflowBundle: { code: bundle.code } }, history, workflowId);
}

/** Where Temporal's time-skipping test server is installed, if it is. */
export function testServerPath(): string | undefined {
  return toolPath('temporal-test-server');
}

/**
 * For the before() of a suite on the test server: skips the suite, saying why, where the binary is
 * not installed, so a missing server never reads as a pass.
 */
export function skipWithoutTestServer(context: Mocha.Context): void {
  if (testServerPath() !== undefined) return;
  console.log(`      skipped: ${missingToolMessage('temporal-test-server')}`);
  context.skip();
}

export async function createWorkflowEnv(options: WorkflowEnvOptions): Promise<WorkflowEnv> {
  return options.on === 'time-skipping-server' ? createServerEnv(options) : createEmbeddedEnv(options);
}

async function createEmbeddedEnv(options: WorkflowEnvOptions): Promise<WorkflowEnv> {
  const engine = await EmbeddedEngine.create({ clock: 'virtual', ...options.engine, workflowsPath: options.workflowsPath, activities: options.activities });
  return {
    kind: 'embedded',
    port: createEmbeddedPort(engine),
    result: (workflowId) => engine.result(workflowId),
    sleep: (ms) => engine.advance(ms),
    now: async () => engine.clock.now(),
    history: async (workflowId, runId) => engine.exportHistory(workflowId, runId),
    searchAttributes: async (workflowId) => engine.describe(workflowId)?.searchAttributes ?? {},
    replay: (workflowId, workflowsPath = options.workflowsPath) => replayHistory(engine.exportHistory(workflowId), workflowsPath, workflowId),
    teardown: () => engine.shutdown(),
  };
}

/**
 * Temporal's time-skipping test server, with Kasi's search attributes registered and Core's
 * runtime quiet: for the facade's envs and for the whole service on the server alike.
 */
export async function startTestServer(path: string): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  const server = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path } } });
  try {
    // As compose's temporal-setup does on a real namespace: the test server rejects a start that
    // carries an attribute it does not know.
    await server.connection.operatorService.addSearchAttributes({
      namespace: 'default',
      searchAttributes: Object.fromEntries([ACCOUNT_ID_ATTRIBUTE, MODE_ATTRIBUTE].map((key) => [key.name, temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD])),
    });
    return server;
  } catch (err) {
    await server.teardown();
    throw err;
  }
}

/**
 * The envs of one test file share one server (started by the first, stopped with the last), each
 * with its own worker on its own task queue. They share its clock too.
 */
let shared: { server: Promise<TestWorkflowEnvironment>; users: number } | undefined;
let taskQueues = 0;

function useServer(): { server: Promise<TestWorkflowEnvironment>; release(): Promise<void> } {
  const path = testServerPath();
  if (path === undefined) throw new Error(missingToolMessage('temporal-test-server'));
  const mine = (shared ??= { server: startTestServer(path), users: 0 });
  mine.users++;
  return {
    server: mine.server,
    async release() {
      if (--mine.users > 0) return;
      if (shared === mine) shared = undefined;
      await (await mine.server).teardown();
    },
  };
}

async function createServerEnv(options: WorkflowEnvOptions): Promise<WorkflowEnv> {
  const use = useServer();
  let worker: Worker;
  let env: TestWorkflowEnvironment;
  const taskQueue = `${TASK_QUEUE}-${++taskQueues}`;
  try {
    env = await use.server;
    const bundle = await bundleWorkflows(options.workflowsPath);
    worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: { code: bundle.code }, activities: options.activities });
  } catch (err) {
    await use.release();
    throw err;
  }
  const running = worker.run();
  const handle = (workflowId: string, runId?: string) => env.client.workflow.getHandle(workflowId, runId);
  return {
    kind: 'time-skipping-server',
    port: createTemporalPort(env.client, taskQueue),
    result: (workflowId) => handle(workflowId).result(),
    sleep: (ms) => env.sleep(ms),
    now: () => env.currentTimeMs(),
    history: (workflowId, runId) => handle(workflowId, runId).fetchHistory(),
    async searchAttributes(workflowId) {
      const { typedSearchAttributes } = await handle(workflowId).describe();
      return Object.fromEntries(typedSearchAttributes.getAll().map(({ key, value }) => [key.name, value]));
    },
    replay: async (workflowId, workflowsPath = options.workflowsPath) => replayHistory(await handle(workflowId).fetchHistory(), workflowsPath, workflowId),
    async teardown() {
      worker.shutdown();
      await running;
      await use.release();
    },
  };
}
