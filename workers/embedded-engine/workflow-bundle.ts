// The workflows' webpack bundle, built once per process in a child process. Building it in the
// service's own heap leaves webpack's modules and caches there for good: measured, 36 MB more
// heap and a full garbage collection 26 ms longer (13 to 38 ms before any workflow runs), which
// every mark-compact of the service's life then pays again. Not a worker thread: the SDK's
// bundler loads its native Core bridge, which does not survive a thread that loads it ending.
import { spawn } from 'node:child_process';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';

export type WorkflowBundle = WorkflowBundleWithSourceMap;

const bundles = new Map<string, Promise<WorkflowBundle>>();

// Plain CommonJS, so the child needs no TypeScript loader; the SDK is resolved here, where it is
// installed, not from the child's working directory. The options come in on argv and the bundle
// goes back on the IPC channel, which nothing else writes to (a preloaded module may print to
// stdout); webpack's errors and warnings go to stderr, which a failure's message carries.
const builderSource = `
const { bundleWorkflowCode } = require(${JSON.stringify(require.resolve('@temporalio/worker/lib/workflow/bundler'))});
const toStderr = (message) => process.stderr.write(message + '\\n');
const logger = { log() {}, trace() {}, debug() {}, info() {}, warn: toStderr, error: toStderr };
bundleWorkflowCode({ ...JSON.parse(process.argv[1]), logger }).then(
  (bundle) => process.send(bundle, () => process.disconnect()),
  (err) => {
    toStderr(err.message);
    process.exitCode = 1;
    process.disconnect();
  },
);
`;

/** Past this, the bundler is taken to be stuck and is stopped (it takes about a second). */
const BUILD_TIMEOUT_MS = 120_000;

function build(workflowsPath: string): Promise<WorkflowBundle> {
  // The SDK's workflow library is preloaded: loaded once into the shared context rather than once
  // per workflow, which takes a third off each open workflow's heap. Its module state is made for
  // sharing (the half of it the SDK's own worker-interface imports is shared anyway); our workflow
  // modules, which a preload would freeze, still load per workflow.
  const options = { workflowsPath, preloadModules: ['@temporalio/workflow', workflowsPath] };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', builderSource, JSON.stringify(options)], {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      timeout: BUILD_TIMEOUT_MS,
    });
    let bundle: WorkflowBundle | undefined;
    const err: Buffer[] = [];
    child.once('message', (message: WorkflowBundle) => (bundle = message));
    child.stderr!.on('data', (chunk: Buffer) => err.push(chunk));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0 && bundle !== undefined) return resolve(bundle);
      const how = signal ? `was stopped by ${signal}${signal === 'SIGTERM' ? ` (no answer in ${BUILD_TIMEOUT_MS / 1000} s)` : ''}` : `exited with code ${code}`;
      reject(new Error(`bundling ${workflowsPath} failed: the bundler ${how}: ${Buffer.concat(err).toString('utf8').trim()}`));
    });
  });
}

/** The bundle of a workflows module, built once per process (webpack takes about a second). */
export function bundleWorkflows(workflowsPath: string): Promise<WorkflowBundle> {
  let bundle = bundles.get(workflowsPath);
  if (bundle === undefined) {
    bundle = build(workflowsPath);
    bundles.set(workflowsPath, bundle);
    // A failed bundle must not be cached: the next caller gets the error afresh.
    void bundle.catch(() => bundles.delete(workflowsPath));
  }
  return bundle;
}
