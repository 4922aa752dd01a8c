// Runs one attempt of an activity the way a real Worker does (the SDK's own Activity class: the
// activity Context, cancellation, failure conversion), without a server in between.
import type { Info } from '@temporalio/activity';
import { ApplicationFailure, defaultFailureConverter, defaultPayloadConverter, noopMetricMeter, ActivityCancellationDetails } from '@temporalio/common';
import type { ActivityFunction, LoadedDataConverter } from '@temporalio/common';
import type { Logger, LogLevel, LogMetadata } from '@temporalio/common/lib/logger';
import { arrayFromPayloads } from '@temporalio/common/lib/converter/payload-converter';
import { Activity } from '@temporalio/worker/lib/activity';
import type { temporal } from '@temporalio/proto';
import { errorToFailure } from './failures';
import type { EngineLog } from './log';
import type { FailureObject } from './proto';

export type AttemptResult =
  | { completed: { result?: temporal.api.common.v1.IPayload | null } }
  | { failed: { failure: FailureObject } }
  | { cancelled: { failure?: FailureObject | null } };

export interface AttemptHandle {
  readonly result: Promise<AttemptResult>;
  /** Asks the activity to stop (its Context's cancellation signal fires). */
  cancel(reason: 'CANCELLED' | 'TIMED_OUT'): void;
}

const dataConverter: LoadedDataConverter = {
  payloadConverter: defaultPayloadConverter,
  failureConverter: defaultFailureConverter,
  payloadCodecs: [],
};

/** The SDK logs every failed attempt at warn; retries are expected, so they go to debug here. */
function activityLogger(log: EngineLog): Logger {
  const write = (level: LogLevel, message: string, meta?: LogMetadata): void => {
    if (level === 'ERROR') log.error({ ...meta }, message);
    else log.debug({ ...meta }, message);
  };
  return {
    log: write,
    trace: (m, meta) => write('TRACE', m, meta),
    debug: (m, meta) => write('DEBUG', m, meta),
    info: (m, meta) => write('INFO', m, meta),
    warn: (m, meta) => write('WARN', m, meta),
    error: (m, meta) => write('ERROR', m, meta),
  };
}

export function startAttempt(
  fn: ActivityFunction | undefined,
  info: Info,
  args: temporal.api.common.v1.IPayload[],
  log: EngineLog,
): AttemptHandle {
  if (fn === undefined) {
    // A real Worker fails such a task the same way: no retry can make the function appear.
    const failure = errorToFailure(ApplicationFailure.nonRetryable(`Activity function ${info.activityType} is not registered on this worker`, 'NotFoundError'));
    return { result: Promise.resolve({ failed: { failure } }), cancel() {} };
  }
  const activity = new Activity(
    info,
    fn,
    dataConverter,
    { type: 'activity', namespace: info.namespace, activityId: info.activityId, workflowId: info.workflowExecution?.workflowId, isLocal: false },
    undefined,
    () => {},
    undefined,
    activityLogger(log),
    noopMetricMeter,
    [],
  );
  const result = activity.run({ args: arrayFromPayloads(defaultPayloadConverter, args), headers: {} }) as Promise<AttemptResult>;
  return {
    result,
    cancel(reason) {
      activity.cancel(reason, new ActivityCancellationDetails({ cancelRequested: reason === 'CANCELLED', timedOut: reason === 'TIMED_OUT' }));
    },
  };
}
