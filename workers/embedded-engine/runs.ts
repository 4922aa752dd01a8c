// The engine's runs: each by run id and the latest of each workflow id, and how a run begins (its
// initializeWorkflow job and WorkflowExecutionStarted event) and gets its sandbox.
import { randomUUID } from 'node:crypto';
import { defaultPayloadConverter, TypedSearchAttributes } from '@temporalio/common';
import type { SearchAttributePair } from '@temporalio/common';
import { encodeUnifiedSearchAttributes } from '@temporalio/common/lib/converter/payload-search-attributes';
import { toPayloads } from '@temporalio/common/lib/converter/payload-converter';
import { msNumberToTs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import type { Workflow } from '@temporalio/worker/lib/workflow/interface';
import type { ReusableVMWorkflowCreator } from '@temporalio/worker/lib/workflow/reusable-vm';
import type { WorkflowInfo } from '@temporalio/workflow';
import { createUnsafeRandomSource } from '@temporalio/workflow/lib/random-helpers';
import type { Clock } from './clock';
import type { EngineStartOptions } from './engine';
import { ENGINE_IDENTITY } from './history';
import type { Job } from './jobs';
import type { Payload } from './proto';
import { Run } from './run';
import type { Deliver, Delivery } from './run';
import { randomnessSeed, seedBytes } from './seed';
import { WorkflowClosedError, WorkflowNotFoundError } from '../../orchestration/errors';

const { EventType } = temporal.api.enums.v1;
const MAX_SHARED_SEARCH_ATTRIBUTE_SETS = 10_000;
/** The typed search attributes a sandbox starts with (the initializeWorkflow job brings the run's). */
const NO_TYPED_SEARCH_ATTRIBUTES = new TypedSearchAttributes();

export class RunRegistry {
  private readonly byRunId = new Map<string, Run>();
  private readonly latestByWorkflowId = new Map<string, Run>();
  private readonly firstRunIds = new Map<string, string>();
  /**
   * Search attributes encoded once per distinct set and shared by the runs that have it (all of a
   * merchant's checkouts do): a run's payloads stay as they were encoded, and an upsert gives the run
   * a copy of its own, so sharing them saves each open run its own.
   */
  private readonly searchAttributeSets = new Map<string, Record<string, Payload>>();
  /**
   * Every run's `info.unsafe`, made once: the SDK copies what it is given into the sandbox (and
   * puts its own `now` and `random` in place of these) at each sandbox's creation.
   */
  private readonly unsafe: WorkflowInfo['unsafe'] = { now: () => this.clock.now(), isReplaying: false, isReplayingHistoryEvents: false, random: createUnsafeRandomSource(Math.random) };

  constructor(
    private readonly creator: ReusableVMWorkflowCreator,
    private readonly clock: Clock,
    private readonly namespace: string,
    private readonly taskQueue: string,
    private readonly deliver: Deliver,
  ) {}

  /**
   * A new run of `options.workflowId`, now its latest, with its first task queued: a fresh start,
   * a continuation (`continued.from`), or a child (`parent`). `withFirst` adds a job to that task.
   */
  create(
    options: EngineStartOptions,
    continued: { from?: Run; args?: Payload[] },
    withFirst?: (run: Run) => Delivery,
    parent?: { run: Run; seq: number },
  ): Run {
    const now = this.clock.now();
    const runId = randomUUID();
    const firstRunId = continued.from ? (this.firstRunId(continued.from) ?? continued.from.runId) : runId;
    const searchAttributes = continued.from?.searchAttributes ?? this.encodedSearchAttributes(options.searchAttributes ?? []);
    const run = new Run(runId, options.workflowId, options.workflowType, options.taskQueue ?? this.taskQueue, now, searchAttributes, parent, continued.from?.runId);
    this.firstRunIds.set(runId, firstRunId);
    this.byRunId.set(runId, run);
    this.latestByWorkflowId.set(options.workflowId, run);
    const input = continued.args ?? toPayloads(defaultPayloadConverter, ...(options.args ?? [])) ?? [];
    const seed = randomnessSeed(runId);
    const parentInfo = parent ? { namespace: this.namespace, workflowId: parent.run.workflowId, runId: parent.run.runId } : undefined;
    const init: Job = {
      initializeWorkflow: {
        workflowType: run.workflowType,
        workflowId: run.workflowId,
        arguments: input,
        randomnessSeed: seed,
        headers: {},
        identity: ENGINE_IDENTITY,
        parentWorkflowInfo: parentInfo,
        workflowTaskTimeout: msNumberToTs(10_000),
        continuedFromExecutionRunId: continued.from?.runId ?? '',
        firstExecutionRunId: firstRunId,
        attempt: 1,
        searchAttributes: { indexedFields: searchAttributes },
        startTime: msNumberToTs(now),
        rootWorkflow: { workflowId: this.rootOf(run).workflowId, runId: this.rootOf(run).runId },
      },
    };
    const record = (): void => {
      run.history.add(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, now, {
        workflowExecutionStartedEventAttributes: {
          workflowId: run.workflowId,
          workflowType: { name: run.workflowType },
          taskQueue: { name: run.taskQueue },
          input: { payloads: input },
          workflowTaskTimeout: msNumberToTs(10_000),
          continuedExecutionRunId: continued.from?.runId ?? '',
          initiator: continued.from ? temporal.api.enums.v1.ContinueAsNewInitiator.CONTINUE_AS_NEW_INITIATOR_WORKFLOW : undefined,
          originalExecutionRunId: runId,
          firstExecutionRunId: firstRunId,
          identity: ENGINE_IDENTITY,
          attempt: 1,
          header: {},
          searchAttributes: { indexedFields: searchAttributes },
          parentWorkflowNamespace: parentInfo?.namespace,
          parentWorkflowExecution: parentInfo ? { workflowId: parentInfo.workflowId, runId: parentInfo.runId } : undefined,
          parentInitiatedEventId: parent ? parent.run.children?.get(parent.seq)?.ref.initiatedEventId : undefined,
        },
      });
    };
    const deliveries: Delivery[] = [{ job: init, record }];
    if (withFirst) deliveries.push(withFirst(run));
    // The first task makes the sandbox (from an empty replay log), so making it, activating it and
    // evicting it run back to back: each switch of the shared context's globals costs a scan.
    for (const delivery of deliveries) this.deliver(run, delivery);
    return run;
  }

  /**
   * Creates the run's sandbox: at its first task, and again after each eviction. Everything it
   * needs is derived from the run (the seed from the run id, as create derived it), so a sleeping
   * run keeps no closure, scope or seed for it.
   */
  createSandbox(run: Run): Promise<Workflow> {
    const parent = run.parent ? { namespace: this.namespace, workflowId: run.parent.run.workflowId, runId: run.parent.run.runId } : undefined;
    return this.creator.createWorkflow({
      info: this.workflowInfo(run, this.firstRunId(run) ?? run.runId, run.continuedFrom, parent),
      randomnessSeed: seedBytes(randomnessSeed(run.runId)),
      now: run.startTime,
      showStackTraceSources: false,
    });
  }

  get(runId: string): Run | undefined {
    return this.byRunId.get(runId);
  }

  latest(workflowId: string): Run | undefined {
    return this.latestByWorkflowId.get(workflowId);
  }

  /** The latest run of the id, which must be open. */
  open(workflowId: string): Run {
    const run = this.latestByWorkflowId.get(workflowId);
    if (run === undefined) throw new WorkflowNotFoundError(workflowId);
    if (!run.open) throw new WorkflowClosedError(workflowId);
    return run;
  }

  /** Every run, oldest first. */
  all(): Iterable<Run> {
    return this.byRunId.values();
  }

  /** The latest run of each workflow id. */
  latestRuns(): Iterable<Run> {
    return this.latestByWorkflowId.values();
  }

  private encodedSearchAttributes(pairs: SearchAttributePair[]): Record<string, Payload> {
    const key = JSON.stringify(pairs.map(({ key: { name, type }, value }) => [name, type, value]));
    let encoded = this.searchAttributeSets.get(key);
    if (encoded === undefined) {
      // Bounded: past it, sets are encoded afresh rather than remembered.
      encoded = encodeUnifiedSearchAttributes(undefined, pairs);
      if (this.searchAttributeSets.size < MAX_SHARED_SEARCH_ATTRIBUTE_SETS) this.searchAttributeSets.set(key, encoded);
    }
    return encoded;
  }

  private firstRunId(run: Run): string | undefined {
    return this.firstRunIds.get(run.runId);
  }

  private rootOf(run: Run): Run {
    return run.parent ? this.rootOf(run.parent.run) : run;
  }

  private workflowInfo(run: Run, firstRunId: string, continuedFrom: string | undefined, parent: { namespace: string; workflowId: string; runId: string } | undefined): WorkflowInfo {
    const root = this.rootOf(run);
    return {
      workflowId: run.workflowId,
      runId: run.runId,
      workflowType: run.workflowType,
      searchAttributes: {},
      typedSearchAttributes: NO_TYPED_SEARCH_ATTRIBUTES,
      parent,
      root: run.parent ? { workflowId: root.workflowId, runId: root.runId } : undefined,
      taskQueue: run.taskQueue,
      namespace: this.namespace,
      firstExecutionRunId: firstRunId,
      originalExecutionRunId: run.runId,
      continuedFromExecutionRunId: continuedFrom,
      startTime: new Date(run.startTime),
      runStartTime: new Date(run.startTime),
      taskTimeoutMs: 10_000,
      attempt: 1,
      historyLength: 0,
      historySize: 0,
      continueAsNewSuggested: false,
      targetWorkerDeploymentVersionChanged: false,
      suggestedContinueAsNewReasons: undefined,
      currentBuildId: '',
      unsafe: this.unsafe,
      priority: undefined,
    };
  }
}
