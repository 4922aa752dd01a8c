// The activations a run was given and how many commands each answered: an evicted run's sandbox
// is rebuilt by giving a new one the same activations in order (see EmbeddedEngine.rehydrate).
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
 * encodes them, length-delimited, into one string, so an open checkout holds one string instead
 * of some 25 objects for every major garbage collection to trace.
 */
export class ReplayLog {
  private recent: ReplayRecord[] = [];
  private packed = '';
  private packedCounts: number[] = [];

  push(activation: Activation, commandCount: number): void {
    this.recent.push({ activation, commandCount });
  }

  pack(): void {
    if (this.recent.length === 0) return;
    const writer = Writer.create();
    for (const { activation } of this.recent) WorkflowActivation.encodeDelimited(activation, writer);
    this.packed = appendPacked(this.packed, writer.finish());
    this.packedCounts = [...this.packedCounts, ...this.recent.map((r) => r.commandCount)];
    this.recent = [];
  }

  clear(): void {
    this.recent = [];
    this.packed = '';
    this.packedCounts = [];
  }

  /** Every record, oldest first. */
  records(): ReplayRecord[] {
    const reader = Reader.create(unpackString(this.packed));
    const unpacked = this.packedCounts.map((commandCount) => ({ activation: WorkflowActivation.decodeDelimited(reader), commandCount }));
    return [...unpacked, ...this.recent];
  }
}
