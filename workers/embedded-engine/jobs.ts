// Activation building. Core sorts the jobs of one activation by kind before the SDK sees them,
// and a new run processes them in that order, so the engine must sort them the same way: a
// checkout paid in the same instant it expires is decided by this order.
import { coresdk } from '@temporalio/proto';
import type { temporal } from '@temporalio/proto';
import { msNumberToTs } from '@temporalio/common/lib/time';

import type { JobObject } from './proto';

export type Job = JobObject;

function rank(job: Job): number {
  if (job.initializeWorkflow) return 0;
  if (job.notifyHasPatch) return 1;
  if (job.updateRandomSeed) return 2;
  if (job.signalWorkflow || job.doUpdate) return 3;
  return 4;
}

/** Stable sort: jobs of the same kind keep their arrival order. */
export function orderJobs(jobs: Job[]): Job[] {
  return jobs
    .map((job, index) => ({ job, index }))
    .sort((a, b) => rank(a.job) - rank(b.job) || a.index - b.index)
    .map(({ job }) => job);
}

export function buildActivation(
  runId: string,
  at: number,
  historyLength: number,
  availableInternalFlags: number[],
  jobs: Job[],
): coresdk.workflow_activation.WorkflowActivation {
  return coresdk.workflow_activation.WorkflowActivation.fromObject({
    runId,
    timestamp: msNumberToTs(at),
    isReplaying: false,
    historyLength,
    availableInternalFlags,
    jobs: orderJobs(jobs),
  });
}

/** Queries are always alone in their activation and carry no timestamp. */
export function buildQueryActivation(runId: string, queryId: string, queryType: string, args: temporal.api.common.v1.IPayload[]): coresdk.workflow_activation.WorkflowActivation {
  return coresdk.workflow_activation.WorkflowActivation.fromObject({
    runId,
    jobs: [{ queryWorkflow: { queryId, queryType, arguments: args, headers: {} } }],
  });
}
