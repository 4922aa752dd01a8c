// The webhook delivery scenarios on the embedded engine, and the connection pools' policy.
import assert from 'node:assert/strict';
import { connectionPool } from '../../net/webhook-http';
import { describeWebhookDelivery } from './delivery.scenarios';

describeWebhookDelivery('embedded');

describe('webhook connection pools', () => {
  it('never lets a live delivery use a connection opened under the test-mode address policy', () => {
    const localTest = connectionPool('https:', { mode: 'test', allowLoopback: true });
    assert.equal(connectionPool('https:', { mode: 'test', allowLoopback: true }), localTest, 'one pool per policy');
    assert.notEqual(connectionPool('https:', { mode: 'live', allowLoopback: true }), localTest);
    assert.notEqual(connectionPool('https:', { mode: 'test', allowLoopback: false }), localTest);
    assert.notEqual(connectionPool('http:', { mode: 'test', allowLoopback: true }), localTest);
  });
});
