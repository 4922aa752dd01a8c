// The history a Temporal server would have written for a run, event by event, so any run of the
// embedded engine can be exported and replayed by Temporal's own Core (Worker.runReplayHistory).
import { temporal } from '@temporalio/proto';
import { msNumberToTs } from '@temporalio/common/lib/time';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';

const { EventType } = temporal.api.enums.v1;
import type { EventObject } from './proto';

type Event = EventObject;
/** An event's attributes, keyed by the HistoryEvent field that carries them. */
type Attributes = Omit<Event, 'eventId' | 'eventTime' | 'eventType'>;

export const ENGINE_IDENTITY = 'kasi-embedded-engine';

export class HistoryRecorder {
  readonly events: Event[] = [];

  get length(): number {
    return this.events.length;
  }

  /** Appends an event and returns its id (ids start at 1, as on a server). */
  add(eventType: temporal.api.enums.v1.EventType, at: number, attributes: Attributes): number {
    const eventId = this.events.length + 1;
    this.events.push({ eventId, eventTime: msNumberToTs(at), eventType, ...attributes });
    return eventId;
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
    return temporal.api.history.v1.History.fromObject({ events: this.events });
  }

  toJSON(): string {
    return historyToJSON(this.toHistory());
  }
}
