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
// installed, not from the child's working directory. The options come in on argv; webpack's
// errors and warnings go to stderr, which a failure's message carries.
const builderSource = `
const { bundleWorkflowCode } = require(${JSON.stringify(require.resolve('@temporalio/worker/lib/workflow/bundler'))});
const toStderr = (message) => process.stderr.write(message + '\\n');
const logger = { log() {}, trace() {}, debug() {}, info() {}, warn: toStderr, error: toStderr };
bundleWorkflowCode({ ...JSON.parse(process.argv[1]), logger }).then(
  (bundle) => process.stdout.write(JSON.stringify(bundle)),
  (err) => {
    toStderr(err.message);
    process.exitCode = 1;
  },
);
`;

function build(workflowsPath: string): Promise<WorkflowBundle> {
  // The SDK's workflow library is preloaded: loaded once into the shared context rather than once
  // per workflow, which takes a third off each open workflow's heap. Its module state is made for
  // sharing (the half of it the SDK's own worker-interface imports is shared anyway); our workflow
  // modules, which a preload would freeze, still load per workflow.
  const options = { workflowsPath, preloadModules: ['@temporalio/workflow', workflowsPath] };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', builderSource, JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve(JSON.parse(Buffer.concat(out).toString('utf8')) as WorkflowBundle);
      else reject(new Error(`bundling ${workflowsPath} failed (exit code ${code}): ${Buffer.concat(err).toString('utf8').trim()}`));
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
