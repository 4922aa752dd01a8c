// Workflow tasks: the activation loop. Jobs delivered to a run wait in its inbox until its turn;
// then one workflow task writes their events, activates the run's sandbox (rebuilt first if it
// was evicted) and hands each command the workflow answered with to the collaborator for its kind.
import { randomUUID } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { toPayloads } from '@temporalio/common/lib/converter/payload-converter';
import { temporal } from '@temporalio/proto';
import type { Workflow } from '@temporalio/worker/lib/workflow/interface';
import type { ActivityCommands } from './activities';
import type { BackgroundWork } from './background-work';
import type { ChildWorkflowCommands } from './child-workflows';
import type { Clock } from './clock';
import { errorToFailure, failureToError } from './failures';
import { ENGINE_IDENTITY } from './history';
import { buildActivation, buildQueryActivation } from './jobs';
import type { EngineLog } from './log';
import type { Command, FailureObject } from './proto';
import { withFlags } from './run';
import type { Delivery, Run } from './run';
import type { RunRegistry } from './runs';
import type { SignalsAndUpdates } from './signals-and-updates';
import { dropCancelledTimers } from './timers';
import type { TimerCommands } from './timers';
import type { WorkflowCache } from './workflow-cache';
import type { ExecutionCommands } from './workflow-execution';
import { WorkflowQueryFailedError, WorkflowTaskFailedError } from '../../orchestration/errors';

const { EventType } = temporal.api.enums.v1;

/** The collaborators that carry out a workflow task's commands, one per kind. */
export interface WorkflowCommands {
  timers: TimerCommands;
  activities: ActivityCommands;
  children: ChildWorkflowCommands;
  signalsAndUpdates: SignalsAndUpdates;
  execution: ExecutionCommands;
}

export class WorkflowTasks {
  constructor(
    private readonly clock: Clock,
    private readonly log: EngineLog,
    private readonly runs: RunRegistry,
    private readonly cache: WorkflowCache,
    private readonly work: BackgroundWork,
    private readonly commands: WorkflowCommands,
  ) {}

  /** Queues a job for the run's next workflow task. */
  deliver(run: Run, delivery: Delivery): void {
    if (!run.open || this.work.stopped) return;
    (run.inbox ??= []).push(delivery);
    if (run.drainScheduled) return;
    run.drainScheduled = true;
    this.work.trackActivation(run.exclusive(() => this.drain(run)));
  }

  /** Answers a query from the run's sandbox, inside the run's turn. */
  async query<T>(run: Run, queryType: string, args: unknown[]): Promise<T> {
    const { workflowId } = run;
    if (run.workflow === undefined && !run.open) throw new WorkflowQueryFailedError(workflowId, queryType, `workflow ${workflowId} is closed; the embedded engine answers queries on open workflows only`);
    // A run whose task failed is not rebuilt: it would fail the same way.
    const workflow = run.workflow ?? (run.taskFailure ? undefined : await this.rehydrate(run));
    if (workflow === undefined) throw new WorkflowQueryFailedError(workflowId, queryType, `workflow ${workflowId} is stuck on a failed task: ${run.taskFailure?.message ?? 'unknown'}`);
    this.cache.touch(run);
    const queryId = randomUUID();
    const completion = await workflow.activate(buildQueryActivation(run.runId, queryId, queryType, toPayloads(defaultPayloadConverter, ...args) ?? []));
    await this.forwardSinkCalls(run);
    const answer = completion.successful?.commands?.find((c) => c.respondToQuery?.queryId === queryId)?.respondToQuery;
    if (answer?.succeeded) return defaultPayloadConverter.fromPayload<T>(answer.succeeded.response ?? {});
    const message = answer?.failed?.message ?? completion.failed?.failure?.message ?? 'no answer';
    throw new WorkflowQueryFailedError(workflowId, queryType, message);
  }

  private async drain(run: Run): Promise<void> {
    const { activities, signalsAndUpdates } = this.commands;
    run.drainScheduled = false;
    while (run.inbox && run.open && !run.taskFailure) {
      const workflow = run.workflow ?? (await this.rehydrate(run));
      if (workflow === undefined) return;
      const deliveries = run.inbox ?? [];
      run.inbox = undefined;
      for (const delivery of deliveries) delivery.record?.();
      const now = this.clock.now();
      const task = run.history.workflowTaskStarted(now, run.taskQueue);
      const commands: Command[] = [];
      let activations = 0;
      let jobs = deliveries.map((d) => (typeof d.job === 'function' ? d.job() : d.job));
      // One workflow task may take several activations: Core resolves some commands on its own
      // (an activity cancelled with TRY_CANCEL) and activates again before answering the server.
      while (jobs.length > 0) {
        const activation = buildActivation(run.runId, now, task.startedEventId, [...run.flags], jobs);
        // Activations of different runs overlap, as on a Temporal worker: each waits out one turn
        // of the event loop after it concludes (the SDK's check for unhandled rejections), and
        // taking them one at a time let only one finish per turn, so under load the engine fell
        // seconds behind the API, its sandboxes piling up.
        const completion = await workflow.activate(activation);
        await this.forwardSinkCalls(run);
        if (completion.failed || !completion.successful) {
          this.failTask(run, completion.failed?.failure ?? { message: 'activation returned no completion' });
          return;
        }
        run.flags = withFlags(run.flags, completion.successful.usedInternalFlags ?? []);
        const produced = completion.successful.commands ?? [];
        run.replay.push(activation, produced.length);
        activations++;
        jobs = activities.resolveLocally(run, produced, commands);
        commands.push(...produced);
      }
      dropCancelledTimers(commands);
      if (signalsAndUpdates.onlyRejectsUpdates(run, deliveries, commands)) {
        // The server ran this task speculatively and, with every update rejected, drops it: no
        // event in history, and nothing for a rebuilt sandbox to replay (a validator changes no state).
        run.history.truncate(task.scheduledEventId - 1);
        run.replay.dropLast(activations);
        for (const command of commands) signalsAndUpdates.respondToUpdate(run, command.updateResponse ?? {}, task.scheduledEventId);
        continue;
      }
      const unsupported = commands.find((c) => !isSupported(c));
      if (unsupported) {
        this.failTask(run, { message: `the embedded engine does not support the command ${Object.keys(unsupported).filter((k) => k !== 'userMetadata').join(', ')}` });
        return;
      }
      const completedEventId = run.history.workflowTaskCompleted(now, task, [...run.flags]);
      for (const command of commands) {
        if (!run.open) break;
        if (command.updateResponse) signalsAndUpdates.respondToUpdate(run, command.updateResponse, task.scheduledEventId);
        else this.apply(run, command, completedEventId);
      }
    }
    await this.cache.afterTask(run);
  }

  /**
   * Rebuilds an evicted run's sandbox: a new one, given every activation the run was given, in
   * order. Workflow code is deterministic, so it ends where the run was; its commands were carried
   * out the first time and are dropped, as are its log calls. A different number of commands means
   * the code is not deterministic: the run's task fails, loudly.
   */
  private async rehydrate(run: Run): Promise<Workflow | undefined> {
    let workflow: Workflow;
    try {
      workflow = await this.runs.createSandbox(run);
    } catch (err) {
      this.failTask(run, errorToFailure(err));
      return undefined;
    }
    for (const { activation, commandCount } of run.replay.records()) {
      const completion = await workflow.activate(activation);
      await workflow.getAndResetSinkCalls();
      const produced = completion.successful?.commands?.length;
      if (produced !== commandCount) {
        await workflow.dispose();
        this.failTask(run, completion.failed?.failure ?? {
          message: `rebuilding ${run.workflowType} ${run.workflowId} after its eviction gave ${produced ?? 'no'} commands where the run gave ${commandCount}: the workflow code is not deterministic`,
        });
        return undefined;
      }
    }
    run.workflow = workflow;
    return workflow;
  }

  private apply(run: Run, command: Command, completedEventId: number): void {
    const { timers, activities, children, execution } = this.commands;
    if (command.startTimer) timers.start(run, command.startTimer, completedEventId);
    else if (command.cancelTimer) timers.cancel(run, command.cancelTimer, completedEventId);
    else if (command.scheduleActivity) activities.schedule(run, command.scheduleActivity, completedEventId);
    else if (command.requestCancelActivity) activities.requestCancel(run, command.requestCancelActivity.seq ?? 0, completedEventId);
    else if (command.setPatchMarker) execution.recordPatch(run, command.setPatchMarker, completedEventId);
    else if (command.upsertWorkflowSearchAttributes) execution.upsertSearchAttributes(run, command.upsertWorkflowSearchAttributes, completedEventId);
    else if (command.startChildWorkflowExecution) children.start(run, command.startChildWorkflowExecution, completedEventId);
    else if (command.completeWorkflowExecution) execution.complete(run, command.completeWorkflowExecution, completedEventId);
    else if (command.failWorkflowExecution) execution.fail(run, command.failWorkflowExecution, completedEventId);
    else if (command.cancelWorkflowExecution) execution.cancel(run, completedEventId);
    else if (command.continueAsNewWorkflowExecution) execution.continueAsNew(run, command.continueAsNewWorkflowExecution, completedEventId);
  }

  /**
   * A plain Error thrown by workflow code, or a determinism problem: a real server would retry the
   * task forever and the workflow would sit still. Say so loudly; result() rejects with it.
   */
  private failTask(run: Run, failure: FailureObject): void {
    run.taskFailure = failure;
    const error = failureToError(failure);
    this.log.error(
      { workflowId: run.workflowId, runId: run.runId, workflowType: run.workflowType, error: error.stack ?? error.message },
      `workflow task failed: ${run.workflowType} ${run.workflowId} is stuck until its code is fixed (${error.message})`,
    );
    run.history.add(EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED, this.clock.now(), {
      workflowTaskFailedEventAttributes: { failure, identity: ENGINE_IDENTITY },
    });
    this.commands.signalsAndUpdates.abandonUpdates(run, () => new WorkflowTaskFailedError(run.workflowId, error));
    run.wake();
  }

  private async forwardSinkCalls(run: Run): Promise<void> {
    const calls = await run.workflow?.getAndResetSinkCalls();
    for (const call of calls ?? []) {
      if (call.ifaceName !== '__temporal_logger' && call.ifaceName !== 'defaultWorkerLogger') continue;
      const [message, attrs] = call.args as [string, Record<string, unknown> | undefined];
      const fields = { ...attrs, workflowId: run.workflowId, runId: run.runId };
      const level = call.fnName === 'error' || call.fnName === 'warn' || call.fnName === 'info' ? call.fnName : 'debug';
      this.log[level](fields, message);
    }
  }
}

function isSupported(command: Command): boolean {
  return Boolean(
    command.startTimer ||
      command.cancelTimer ||
      command.scheduleActivity ||
      command.requestCancelActivity ||
      command.completeWorkflowExecution ||
      command.failWorkflowExecution ||
      command.cancelWorkflowExecution ||
      command.continueAsNewWorkflowExecution ||
      command.setPatchMarker ||
      command.upsertWorkflowSearchAttributes ||
      command.startChildWorkflowExecution ||
      command.updateResponse ||
      // Emptied by resolveLocally: a schedule-and-cancel pair that never reaches the server.
      Object.values(command).every((v) => v == null),
  );
}
