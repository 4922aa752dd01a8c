// Workflow ids and search attributes chosen so an operator finds any object's workflow in the
// Temporal UI: the id is `<kind>/<objectId>` (`checkout/chk_...`), and every workflow carries its
// account and mode as search attributes (KasiAccountId = "acct_...", KasiMode = "test").
import { defineSearchAttributeKey } from '@temporalio/common';
import type { SearchAttributePair } from '@temporalio/common';
import type { Mode } from './port';

/** The task queue every Kasi worker polls. */
export const TASK_QUEUE = 'kasi';

export type WorkflowKind = 'checkout' | 'subscription' | 'invoice' | 'delivery' | 'refund' | 'charge' | (string & {});

export function workflowIdFor(kind: WorkflowKind, objectId: string): string {
  return `${kind}/${objectId}`;
}

export const ACCOUNT_ID_ATTRIBUTE = defineSearchAttributeKey('KasiAccountId', 'KEYWORD');
export const MODE_ATTRIBUTE = defineSearchAttributeKey('KasiMode', 'KEYWORD');

export function searchAttributesFor(accountId: string | undefined, mode: Mode | undefined): SearchAttributePair[] {
  const pairs: SearchAttributePair[] = [];
  if (accountId !== undefined) pairs.push({ key: ACCOUNT_ID_ATTRIBUTE, value: accountId });
  if (mode !== undefined) pairs.push({ key: MODE_ATTRIBUTE, value: mode });
  return pairs;
}
