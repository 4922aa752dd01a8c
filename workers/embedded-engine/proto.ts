// The proto types the engine works with. The typings say Long for every 64-bit field; the engine
// builds plain objects with numbers and hands them to protobufjs' fromObject, which converts them:
// Loose allows exactly that.
import { temporal, coresdk } from '@temporalio/proto';

type Long = NonNullable<temporal.api.history.v1.IHistoryEvent['eventId']>;

export type Loose<T> = T extends Long
  ? number | string | Long
  : T extends Uint8Array
    ? T
    : T extends (infer U)[]
      ? Loose<U>[]
      : T extends object
        ? { [K in keyof T]: Loose<T[K]> }
        : T;

export type Payload = temporal.api.common.v1.IPayload;
export type Command = coresdk.workflow_commands.IWorkflowCommand;
export type FailureObject = Loose<temporal.api.failure.v1.IFailure>;
export type JobObject = Loose<coresdk.workflow_activation.IWorkflowActivationJob>;
export type EventObject = Loose<temporal.api.history.v1.IHistoryEvent>;

/** Milliseconds of a proto duration or timestamp, whichever form its seconds take. */
export function tsMs(ts: { seconds?: number | string | Long | null; nanos?: number | null } | null | undefined): number | undefined {
  if (ts == null) return undefined;
  const seconds = ts.seconds == null ? 0 : typeof ts.seconds === 'object' ? ts.seconds.toNumber() : Number(ts.seconds);
  return seconds * 1000 + Math.round((ts.nanos ?? 0) / 1e6);
}

export function toFailure(failure: FailureObject): temporal.api.failure.v1.Failure {
  return temporal.api.failure.v1.Failure.fromObject(failure);
}

/**
 * Encoded protobuf bytes kept as a one-byte-per-char string: exactly sized, one heap object that
 * the garbage collector never looks inside (a small Buffer would instead pin a slab of Node's
 * shared allocation pool). Appending goes through bytes so the string stays flat, not a chain of
 * joined strings.
 */
export function appendPacked(packed: string, bytes: Uint8Array): string {
  const all = packed === '' ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : Buffer.concat([unpackString(packed), bytes]);
  return all.toString('latin1');
}

export function unpackString(packed: string): Buffer {
  return Buffer.from(packed, 'latin1');
}
