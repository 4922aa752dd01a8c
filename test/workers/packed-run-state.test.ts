// An evicted run keeps its history and the activations it was given encoded, one string each;
// what comes back out must be exactly what went in, across several packs.
import assert from 'node:assert/strict';
import { temporal } from '@temporalio/proto';
import { HistoryRecorder } from '../../workers/embedded-engine/history';
import { buildActivation } from '../../workers/embedded-engine/jobs';
import { ReplayLog } from '../../workers/embedded-engine/replay-log';

const { EventType } = temporal.api.enums.v1;
const T0 = Date.UTC(2026, 10, 22, 8, 0, 0);
const payload = { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('{"checkoutId":"chk_1"}') };

describe('embedded engine: a sleeping run keeps its state encoded', function () {
  it('history: events added before and after each pack come back in order, ids and all', function () {
    const history = new HistoryRecorder();
    const expected = new HistoryRecorder();
    const record = (h: HistoryRecorder, n: number) => {
      h.add(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED, T0 + n, {
        workflowExecutionSignaledEventAttributes: { signalName: `s${n}`, input: { payloads: [payload] }, identity: 'test' },
      });
      const task = h.workflowTaskStarted(T0 + n, 'kasi');
      return h.workflowTaskCompleted(T0 + n, task, [1, 3]);
    };
    assert.equal(record(history, 1), record(expected, 1));
    history.pack();
    assert.equal(record(history, 2), record(expected, 2), 'ids go on from the packed events');
    history.pack();
    history.pack(); // nothing new: harmless
    assert.equal(record(history, 3), record(expected, 3));
    assert.equal(history.length, 12);
    const events = history.toHistory().toJSON().events as { eventId: string; eventType: string }[];
    assert.deepEqual(history.toHistory().toJSON(), expected.toHistory().toJSON());
    assert.deepEqual(
      events.map((e) => Number(e.eventId)),
      Array.from({ length: 12 }, (_, i) => i + 1),
    );
    history.clear();
    assert.equal(history.length, 0);
    assert.deepEqual(history.toHistory().events, []);
  });

  it('activations: every record, packed or not, with its command count', function () {
    const log = new ReplayLog();
    const activation = (n: number) =>
      buildActivation('run-1', T0 + n, n, [1], [{ signalWorkflow: { signalName: `s${n}`, input: [payload], identity: 'test', headers: {} } }]);
    log.push(activation(1), 1);
    log.push(activation(2), 0);
    log.pack();
    log.push(activation(3), 2);
    log.pack();
    log.push(activation(4), 3);
    const records = log.records();
    assert.deepEqual(
      records.map((r) => [r.activation.jobs[0]?.signalWorkflow?.signalName, Number(r.activation.historyLength), r.commandCount]),
      [
        ['s1', 1, 1],
        ['s2', 2, 0],
        ['s3', 3, 2],
        ['s4', 4, 3],
      ],
    );
    assert.deepEqual(Buffer.from(records[2]!.activation.jobs[0]!.signalWorkflow!.input![0]!.data!), payload.data);
    log.clear();
    assert.deepEqual(log.records(), []);
  });
});
