// One start builder per workflow: its type, id, arguments and search attributes in one place, for
// the routes, the pages and the resumers alike. The type is checked against the workflows' own
// exports, so a renamed workflow fails `tsc` here.
import type * as workflows from '../workflows';
import type { CheckoutLifetimeInput } from '../workflows/checkout-lifetime';
import { workflowIdFor } from './ids';
import type { Mode, WorkflowStart } from './port';

type WorkflowType = keyof typeof workflows;
const type = <T extends WorkflowType>(name: T): T => name;

/** A checkout's 30 minutes, startable from its row alone (and the attempt with the processor, if any). */
export function checkoutLifetimeStart(
  checkout: { id: string; expires_at: Date; account_id: string; mode: Mode },
  attemptInFlight?: number,
): WorkflowStart {
  const input: CheckoutLifetimeInput = { checkoutId: checkout.id, expiresAt: checkout.expires_at.toISOString(), ...(attemptInFlight === undefined ? {} : { attemptInFlight }) };
  return { workflowType: type('checkoutLifetime'), workflowId: workflowIdFor('checkout', checkout.id), args: [input], accountId: checkout.account_id, mode: checkout.mode };
}
