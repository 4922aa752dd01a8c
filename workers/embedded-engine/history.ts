// The history a Temporal server would have written for a run, event by event, so any run of the
// embedded engine can be exported and replayed by Temporal's own Core (Worker.runReplayHistory).
import { temporal } from '@temporalio/proto';
import { msNumberToTs } from '@temporalio/common/lib/time';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';

const { EventType } = temporal.api.enums.v1;
const { History } = temporal.api.history.v1;
import { appendPacked, unpackString, type EventObject } from './proto';

type Event = EventObject;
/** An event's attributes, keyed by the HistoryEvent field that carries them. */
type Attributes = Omit<Event, 'eventId' | 'eventTime' | 'eventType'>;

export const ENGINE_IDENTITY = 'kasi-embedded-engine';

/**
 * A run's history. Events are kept as objects while the run is active; `pack()` (called when the
 * run leaves the sandbox to sleep) encodes them into one string. With tens of thousands of
 * checkouts open, each one's some 50 small objects would otherwise be traced by every major
 * garbage collection; a string is one object, never traced inside.
 */
export class HistoryRecorder {
  /** Events since the last pack, as objects (unset when there are none). */
  private recent?: Event[];
  /** Earlier events: an encoded History, one byte per char (repeated fields concatenate). */
  private packed = '';
  private packedCount = 0;

  get length(): number {
    return this.packedCount + (this.recent?.length ?? 0);
  }

  /** Appends an event and returns its id (ids start at 1, as on a server). */
  add(eventType: temporal.api.enums.v1.EventType, at: number, attributes: Attributes): number {
    const eventId = this.length + 1;
    (this.recent ??= []).push({ eventId, eventTime: msNumberToTs(at), eventType, ...attributes });
    return eventId;
  }

  /** Encodes the events recorded since the last pack. */
  pack(): void {
    if (this.recent === undefined) return;
    // Encoded as they are: protobufjs writes numbers where the typings say Long (and skips a
    // fromObject copy, which took as long again).
    const bytes = History.encode({ events: this.recent } as unknown as temporal.api.history.v1.IHistory).finish();
    this.packed = appendPacked(this.packed, bytes);
    this.packedCount += this.recent.length;
    this.recent = undefined;
  }

  /**
   * Forgets the events after the first `length`, all recorded since the last pack: a workflow task
   * that only rejected updates, which a server drops (it was speculative).
   */
  truncate(length: number): void {
    const keep = length - this.packedCount;
    if (keep < 0 || this.recent === undefined) throw new Error(`cannot truncate packed history to ${length} events`);
    this.recent.length = keep;
    if (keep === 0) this.recent = undefined;
  }

  /** Drops the events (a closed run whose history is not kept). */
  clear(): void {
    this.recent = undefined;
    this.packed = '';
    this.packedCount = 0;
  }

  /** Records the scheduled and started events of a workflow task; returns the started event id. */
  workflowTaskStarted(at: number, taskQueue: string): { scheduledEventId: number; startedEventId: number } {
    const scheduledEventId = this.add(EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, at, {
      workflowTaskScheduledEventAttributes: { taskQueue: { name: taskQueue }, startToCloseTimeout: msNumberToTs(10_000), attempt: 1 },
    });
    const startedEventId = this.add(EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED, at, {
      workflowTaskStartedEventAttributes: { scheduledEventId, identity: ENGINE_IDENTITY, historySizeBytes: 0 },
    });
    return { scheduledEventId, startedEventId };
  }

  workflowTaskCompleted(at: number, task: { scheduledEventId: number; startedEventId: number }, langUsedFlags: number[]): number {
    return this.add(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, at, {
      workflowTaskCompletedEventAttributes: {
        ...task,
        identity: ENGINE_IDENTITY,
        // The SDK reads its own behaviour flags back from here on replay.
        sdkMetadata: { langUsedFlags, sdkName: 'temporal-typescript', sdkVersion: '1.24.0' },
      },
    });
  }

  toHistory(): temporal.api.history.v1.History {
    const history = History.decode(unpackString(this.packed));
    history.events.push(...History.fromObject({ events: this.recent ?? [] }).events);
    return history;
  }

  toJSON(): string {
    return historyToJSON(this.toHistory());
  }
}
