// Failures shaped as Core shapes them before they reach workflow code: the activity's own failure
// wrapped in an ActivityFailure (or ChildWorkflowFailure) carrying the retry state.
import { temporal } from '@temporalio/proto';
import { defaultFailureConverter, defaultPayloadConverter, ensureApplicationFailure } from '@temporalio/common';

import { toFailure } from './proto';
import type { FailureObject } from './proto';

type Failure = FailureObject;
const { RetryState, TimeoutType } = temporal.api.enums.v1;
export type RetryStateName = 'NON_RETRYABLE_FAILURE' | 'MAXIMUM_ATTEMPTS_REACHED' | 'TIMEOUT' | 'RETRY_POLICY_NOT_SET' | 'CANCEL_REQUESTED';

export function retryState(name: RetryStateName): temporal.api.enums.v1.RetryState {
  return RetryState[`RETRY_STATE_${name}`];
}

export function errorToFailure(err: unknown): Failure {
  return defaultFailureConverter.errorToFailure(ensureApplicationFailure(err), defaultPayloadConverter);
}

export function failureToError(failure: Failure): Error {
  return defaultFailureConverter.failureToError(toFailure(failure), defaultPayloadConverter);
}

export interface ActivityRef {
  activityId: string;
  activityType: string;
  scheduledEventId: number;
  startedEventId: number;
}

export function activityFailure(ref: ActivityRef, cause: Failure, state: RetryStateName): Failure {
  return {
    message: 'Activity task failed',
    cause,
    activityFailureInfo: {
      scheduledEventId: ref.scheduledEventId,
      startedEventId: ref.startedEventId,
      activityId: ref.activityId,
      activityType: { name: ref.activityType },
      retryState: retryState(state),
    },
  };
}

export function activityCancelledFailure(ref: ActivityRef): Failure {
  return {
    message: 'Activity cancelled',
    cause: { message: 'Activity cancelled', canceledFailureInfo: {} },
    activityFailureInfo: {
      scheduledEventId: ref.scheduledEventId,
      startedEventId: ref.startedEventId,
      activityId: ref.activityId,
      activityType: { name: ref.activityType },
      retryState: RetryState.RETRY_STATE_CANCEL_REQUESTED,
    },
  };
}

export function startToCloseTimeoutFailure(): Failure {
  return { message: 'activity StartToClose timeout', timeoutFailureInfo: { timeoutType: TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE } };
}

export interface ChildRef {
  namespace: string;
  workflowId: string;
  runId: string;
  workflowType: string;
  initiatedEventId: number;
  startedEventId: number;
}

export function childFailure(ref: ChildRef, message: string, cause: Failure, state: RetryStateName): Failure {
  return {
    message,
    cause,
    childWorkflowExecutionFailureInfo: {
      namespace: ref.namespace,
      workflowExecution: { workflowId: ref.workflowId, runId: ref.runId },
      workflowType: { name: ref.workflowType },
      initiatedEventId: ref.initiatedEventId,
      startedEventId: ref.startedEventId,
      retryState: retryState(state),
    },
  };
}
