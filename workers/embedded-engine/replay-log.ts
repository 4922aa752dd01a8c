// The activations a run was given and how many commands each answered: an evicted run's sandbox
// is rebuilt by giving a new one the same activations in order (see WorkflowTasks.rehydrate).
import { coresdk } from '@temporalio/proto';
import { Reader, Writer } from 'protobufjs/minimal';
import { appendPacked, unpackString } from './proto';

type Activation = coresdk.workflow_activation.WorkflowActivation;
const { WorkflowActivation } = coresdk.workflow_activation;

export interface ReplayRecord {
  activation: Activation;
  commandCount: number;
}

/**
 * Kept as objects while the run is active; `pack()` (when the run leaves the sandbox to sleep)
 * encodes them into one string (each record its command count as a varint, then its activation,
 * length-delimited), so an open checkout holds one string instead of some 25 objects for every
 * major garbage collection to trace.
 */
export class ReplayLog {
  /** Records since the last pack (unset when there are none). */
  private recent?: ReplayRecord[];
  private packed = '';

  push(activation: Activation, commandCount: number): void {
    (this.recent ??= []).push({ activation, commandCount });
  }

  /** Forgets the last `count` records, all pushed since the last pack (see HistoryRecorder.truncate). */
  dropLast(count: number): void {
    if (count === 0) return;
    if (this.recent === undefined || this.recent.length < count) throw new Error(`cannot drop ${count} packed replay records`);
    this.recent.length -= count;
    if (this.recent.length === 0) this.recent = undefined;
  }

  pack(): void {
    if (this.recent === undefined) return;
    const writer = Writer.create();
    for (const { activation, commandCount } of this.recent) WorkflowActivation.encodeDelimited(activation, writer.uint32(commandCount));
    this.packed = appendPacked(this.packed, writer.finish());
    this.recent = undefined;
  }

  clear(): void {
    this.recent = undefined;
    this.packed = '';
  }

  /** Every record, oldest first. */
  records(): ReplayRecord[] {
    const reader = Reader.create(unpackString(this.packed));
    const records: ReplayRecord[] = [];
    while (reader.pos < reader.len) {
      const commandCount = reader.uint32();
      records.push({ activation: WorkflowActivation.decodeDelimited(reader), commandCount });
    }
    return [...records, ...(this.recent ?? [])];
  }
}
