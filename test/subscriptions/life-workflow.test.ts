// The subscription's workflow (workflows/subscription.ts) on the embedded engine with its activity
// played by the test: a merchant's change committed while a step was being taken (its signal
// arriving before the step's answer) makes the workflow ask again at once, rather than wait for a
// step the row no longer says, in the run the step was taken in or before continuing as new.
import assert from 'node:assert/strict';
import path from 'node:path';
import type { SubscriptionDue } from '../../domain/subscription-rules';
import type { SteppedSubscription } from '../../services/subscriptions/step';
import { subscriptionChangedSignal } from '../../workflows/subscription';
import { EmbeddedEngine } from '../../workers/embedded-engine/engine';

const workflowsPath = path.resolve(__dirname, '../../workflows/index.ts');
const DAY = 24 * 60 * 60 * 1000;

describe("a subscription's workflow and changes made while it takes a step", function () {
  this.timeout(60_000);

  for (const first of ['renew', 'invoice_upcoming'] as const) {
    it(`a change signalled during the ${first} step: asked about at once, not at the stale step's time`, async () => {
      const asked: (SubscriptionDue | null)[] = [];
      // The engine the activity signals through, made once the activities are.
      const made: { engine?: EmbeddedEngine } = {};
      
      const activities = {
        async stepSubscription(_id: string, due: SubscriptionDue | null): Promise<SteppedSubscription> {
          asked.push(due);
          // The first step's answer is stale: the merchant's change commits and signals before it arrives.
          if (asked.length === 1) await made.engine!.signal('subscription/sub_changed', subscriptionChangedSignal.name);
          return asked.length === 1 ? { kind: 'renew', at: made.engine!.clock.now() + 300 * DAY } : { kind: 'ended' };
        },
      };
      const engine = (made.engine = await EmbeddedEngine.create({ workflowsPath, activities, clock: 'virtual' }));
      try {
        const now = engine.clock.now();
        engine.start({ workflowType: 'subscriptionLife', workflowId: 'subscription/sub_changed', args: [{ subscriptionId: 'sub_changed', clockId: null, next: { kind: first, at: now + DAY } }] });
        await engine.runUntilIdle();
        await engine.advance(DAY);
        await engine.runUntilIdle();
        // Asked again with nothing due, a day in, not 300 days on.
        assert.deepEqual(asked, [{ kind: first, at: now + DAY }, null]);
        assert.equal(engine.describe('subscription/sub_changed')?.status, 'COMPLETED');
      } finally {
        await engine.shutdown();
      }
    });
  }
});
