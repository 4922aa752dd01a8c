// The workflow sandbox: the same webpack bundle and the same reusable V8 context that a real
// @temporalio/worker Worker runs workflows in, driven directly (see
// ../../../shared/notes/temporal-without-a-server.md for the measured facts this relies on).
import vm from 'node:vm';
import { native } from '@temporalio/core-bridge';
import { parseWorkflowCode } from '@temporalio/worker/lib/worker';
import type { Workflow, WorkflowCreateOptions } from '@temporalio/worker/lib/workflow/interface';
import { ReusableVMWorkflow, ReusableVMWorkflowCreator } from '@temporalio/worker/lib/workflow/reusable-vm';
import { globalHandlers } from '@temporalio/worker/lib/workflow/vm-shared';
import type { WorkflowModule } from '@temporalio/worker/lib/workflow/vm-shared';
import type { WorkflowBundle } from './workflow-bundle';

type Descriptors = Map<PropertyKey, PropertyDescriptor | undefined>;
type Installs = [PropertyKey, PropertyDescriptor | undefined][];

/**
 * Gives each workflow its own globals in the one shared context, as the SDK's reusable sandbox
 * does, but moves only what a workflow changed. The SDK's switch copies every global's descriptor
 * out, and redefines those whose value differs, from inside the context, where each read goes
 * through Node's contextify interceptors: about 120 µs with 76 globals, and a checkout's life has
 * five switches.
 *
 * Node mirrors every global a script sets, defines or deletes onto the context's outer object, a
 * plain object that reads fast from here. So the switch compares that object with its pristine
 * state and installs, from inside, only the globals that differ (about 20 µs a switch): mostly
 * `__TEMPORAL_ACTIVATOR__`. V8's own globals (`Map`, `escape`) start out on the inner global only;
 * they are copied onto the outer object first, so that deleting one is seen too.
 */
class GlobalsSwitch {
  private readonly pristine: Descriptors;
  private current: WorkflowGlobals | undefined;

  constructor(private readonly sandbox: vm.Context) {
    vm.runInContext(adoptBuiltinsScript, sandbox);
    this.pristine = new Map(Reflect.ownKeys(sandbox).map((key) => [key, Reflect.getOwnPropertyDescriptor(sandbox, key)]));
  }

  /** What to install in the context before calling into it for `next`; undefined when it is in place. */
  enter(next: WorkflowGlobals): Installs | undefined {
    if (this.current === next) return undefined;
    const leaving = this.current ? (this.current.changed = this.changes()) : new Map();
    const installs: Installs = [];
    for (const key of leaving.keys()) if (!next.changed.has(key)) installs.push([key, this.pristine.get(key)]);
    for (const entry of next.changed) installs.push(entry);
    this.current = next;
    return installs;
  }

  /**
   * The globals that differ from the pristine state; undefined marks one deleted. A global counts
   * as changed when its value differs, as in the SDK's own switch (which redefines only those):
   * values are read without making a descriptor, so the scan allocates nothing for the globals a
   * workflow left alone (every builtin's pristine descriptor is a value; an accessor is compared
   * whole). As in the SDK's, a global redefined with the same value and other attributes (made
   * read-only, say) is not seen as changed.
   */
  private changes(): Descriptors {
    const sandbox = this.sandbox as Record<PropertyKey, unknown>;
    const changed: Descriptors = new Map();
    let kept = 0;
    for (const key of Reflect.ownKeys(sandbox)) {
      const was = this.pristine.get(key);
      if (was !== undefined) {
        kept++;
        if ('value' in was ? Object.is(sandbox[key], was.value) : sameDescriptor(Reflect.getOwnPropertyDescriptor(sandbox, key), was)) continue;
      }
      changed.set(key, Reflect.getOwnPropertyDescriptor(sandbox, key));
    }
    if (kept < this.pristine.size) {
      for (const key of this.pristine.keys()) if (!Object.prototype.hasOwnProperty.call(sandbox, key)) changed.set(key, undefined);
    }
    return changed;
  }
}

interface WorkflowGlobals {
  changed: Descriptors;
}

function sameDescriptor(a: PropertyDescriptor | undefined, b: PropertyDescriptor): boolean {
  return (
    a !== undefined &&
    a.value === b.value &&
    a.get === b.get &&
    a.set === b.set &&
    a.writable === b.writable &&
    a.enumerable === b.enumerable &&
    a.configurable === b.configurable
  );
}

// Redefining a global from inside puts a copy on the outer object (non-configurable ones such as
// `undefined` cannot change, so they stay where they are).
const adoptBuiltinsScript = `for (const key of Reflect.ownKeys(globalThis)) {
  const descriptor = Object.getOwnPropertyDescriptor(globalThis, key);
  if (descriptor.configurable) Object.defineProperty(globalThis, key, descriptor);
}`;

// The SDK's call into the context, with the switch's installs in place of its own swap. Deletes
// and defines go through the inner global, so Node applies them to both of the context's objects.
// The call's arguments are handed in by a function made here once, which keeps them in its scope
// (the SDK sets a global for each call and deletes it inside: two more trips through Node's
// interceptors per call, and a start makes six calls). Not in an object on a global: the SDK
// freezes everything the pristine globals reach.
const callScript = `(() => {
  let fn, args, installs;
  Object.defineProperty(globalThis, '__KASI_PREPARE_CALL', {
    value: (nextFn, nextArgs, nextInstalls) => {
      fn = nextFn;
      args = nextArgs;
      installs = nextInstalls;
    },
    writable: false, enumerable: false, configurable: false,
  });
  Object.defineProperty(globalThis, '__KASI_CALL_INTO_SCOPE', {
    value: () => {
      const callFn = fn;
      const callArgs = args;
      const callInstalls = installs;
      args = undefined;
      installs = undefined;
      for (const [key, descriptor] of callInstalls ?? []) {
        if (descriptor === undefined) delete globalThis[key];
        else Object.defineProperty(globalThis, key, descriptor);
      }
      return __TEMPORAL__.api[callFn](...callArgs);
    },
    writable: false, enumerable: false, configurable: false,
  });
})()`;
type PrepareCall = (fn: PropertyKey, args: unknown[], installs: Installs | undefined) => void;
const callIntoScope = new vm.Script('__KASI_CALL_INTO_SCOPE()');

/**
 * The SDK's workflow, which also lets go of its activator's state once disposed. Measured on
 * checkout starts: a disposed workflow's activator stays reachable through the next scavenges
 * (from where, heap snapshots do not show), and everything its fields reach (scopes, promises,
 * maps, the workflow's closures) was promoted with it: 17 kB of old-space garbage per run started,
 * 5 kB with the fields cleared, and a scavenge's pause per start down from 54 to 21 µs. Clearing
 * is safe because nothing runs that workflow's code again: dispose() drains the context's
 * microtasks before it returns, its pending promises have nobody left to settle them, and the
 * engine makes a new workflow to wake a run.
 */
class ReleasingWorkflow extends ReusableVMWorkflow {
  override async dispose(): Promise<void> {
    await super.dispose();
    const activator = this.activator as unknown as Record<string, unknown>;
    for (const key of Object.keys(activator)) activator[key] = undefined;
  }
}

/**
 * The SDK's ReusableVMWorkflowCreator with the cheaper switch between workflows above. Creation is
 * the SDK's own createWorkflow with that switch in place of its own.
 */
class ScopedWorkflowCreator extends ReusableVMWorkflowCreator {
  private readonly globals: GlobalsSwitch;
  private readonly prepareCall: PrepareCall;
  /** No options without a timeout: Node's defaults are the SDK's (errors displayed, no watchdog). */
  private readonly runOptions: vm.RunningScriptOptions | undefined;

  constructor(script: vm.Script, bundle: ReturnType<typeof parseWorkflowCode>, isolateExecutionTimeoutMs: number | undefined, activityNames: Set<string>) {
    // The SDK types the timeout as a number, but Node takes an absent one as "no watchdog".
    super(script, bundle, isolateExecutionTimeoutMs as number, activityNames);
    // The SDK's constructor has loaded the bundle: what the context holds now is the pristine state.
    this.globals = new GlobalsSwitch(this.context);
    this.prepareCall = (this.context as vm.Context).__KASI_PREPARE_CALL as PrepareCall;
    this.runOptions = isolateExecutionTimeoutMs === undefined ? undefined : { timeout: isolateExecutionTimeoutMs, displayErrors: true };
  }

  protected override injectGlobals(context: vm.Context): void {
    super.injectGlobals(context);
    vm.runInContext(callScript, context);
  }

  // Async as the SDK's is: a workflow that fails to load is a rejected promise, not a throw.
  override async createWorkflow(options: WorkflowCreateOptions): Promise<Workflow> {
    const context = this.context;
    const globals = this.globals;
    const prepareCall = this.prepareCall;
    const own: WorkflowGlobals = { changed: new Map() };
    const runOptions = this.runOptions;
    const workflowModule = new Proxy({} as WorkflowModule, {
      get(_, fn) {
        return (...args: unknown[]) => {
          prepareCall(fn, args, globals.enter(own));
          // Microtasks run inside this call (microtaskMode 'afterEvaluate'), still with these globals.
          return callIntoScope.runInContext(context, runOptions);
        };
      },
    });
    workflowModule.initRuntime({
      ...options,
      sourceMap: this.workflowBundle.sourceMap,
      getTimeOfDay: native.getTimeOfDay,
      registeredActivityNames: this.registeredActivityNames,
      stackTracesEnabled: globalHandlers.promiseHookInstalled,
    });
    const activator = (context as { __TEMPORAL_ACTIVATOR__: ConstructorParameters<typeof ReusableVMWorkflow>[2] }).__TEMPORAL_ACTIVATOR__;
    const workflow = new ReleasingWorkflow(options.info.runId, context, activator, workflowModule);
    // The SDK's unhandled-rejection handler finds the workflow a stray rejection belongs to here.
    ReusableVMWorkflowCreator.workflowByRunId.set(options.info.runId, workflow);
    return workflow;
  }
}

/**
 * One reusable V8 context for a whole bundle. The SDK's own `create()` also installs promise hooks
 * that keep a stack trace for every promise a workflow makes (what `__stack_trace` queries read);
 * they cost memory per open workflow, so the engine leaves them off.
 *
 * With a timeout, Node starts a watchdog thread for every call into the sandbox (the real Worker
 * pays that inside its worker threads); it halves the engine's throughput, so it is optional.
 */
export function createWorkflowCreator(bundle: WorkflowBundle, activityNames: Iterable<string>, isolateExecutionTimeoutMs?: number): ReusableVMWorkflowCreator {
  const parsed = parseWorkflowCode(bundle.code);
  const script = new vm.Script(parsed.code, { filename: parsed.filename });
  return new ScopedWorkflowCreator(script, parsed, isolateExecutionTimeoutMs, new Set(activityNames));
}
