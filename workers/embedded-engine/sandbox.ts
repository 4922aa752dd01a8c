// The workflow sandbox: the same webpack bundle and the same reusable V8 context that a real
// @temporalio/worker Worker runs workflows in, driven directly (see
// ../../../shared/notes/temporal-without-a-server.md for the measured facts this relies on).
import vm from 'node:vm';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { parseWorkflowCode } from '@temporalio/worker/lib/worker';
import { ReusableVMWorkflowCreator } from '@temporalio/worker/lib/workflow/reusable-vm';

export type WorkflowBundle = WorkflowBundleWithSourceMap;

const bundles = new Map<string, Promise<WorkflowBundle>>();
const silent = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/** Bundles a workflows module once per process (webpack takes about a second). */
export function bundleWorkflows(workflowsPath: string): Promise<WorkflowBundle> {
  let bundle = bundles.get(workflowsPath);
  if (bundle === undefined) {
    bundle = bundleWorkflowCode({ workflowsPath, logger: silent });
    bundles.set(workflowsPath, bundle);
    // A failed bundle must not be cached: the next caller gets the error afresh.
    void bundle.catch(() => bundles.delete(workflowsPath));
  }
  return bundle;
}

/**
 * One reusable V8 context for a whole bundle. The SDK's own `create()` also installs promise hooks
 * that keep a stack trace for every promise a workflow makes (what `__stack_trace` queries read);
 * they cost memory per open workflow, so the engine leaves them off.
 *
 * With a timeout, Node starts a watchdog thread for every call into the sandbox (the real Worker
 * pays that inside its worker threads); it halves the engine's throughput, so it is optional.
 */
export function createWorkflowCreator(
  bundle: WorkflowBundle,
  activityNames: Iterable<string>,
  isolateExecutionTimeoutMs?: number,
): ReusableVMWorkflowCreator {
  const parsed = parseWorkflowCode(bundle.code);
  const script = new vm.Script(parsed.code, { filename: parsed.filename });
  // The SDK types the timeout as a number, but Node takes an absent one as "no watchdog".
  return new ReusableVMWorkflowCreator(script, parsed, isolateExecutionTimeoutMs as number, new Set(activityNames));
}
