// Event types. Public events are listed by GET /v1/events and sent to webhooks; `test.ping` goes
// only to the one endpoint it is sent to and is never listed.
export const EMITTED_EVENT_TYPES = [
  'payment.succeeded',
  'payment.failed',
  'checkout.expired',
  'card.saved',
  'card.save_failed',
  'refund.succeeded',
  'refund.failed',
  'customer.subscription.updated',
  'customer.subscription.resumed',
  'invoice.sent',
  'invoice.paid',
  'invoice.payment_failed',
  'invoice.voided',
  'invoice.marked_uncollectible',
] as const;

/** Types the spec also accepts in the `type` filter of GET /v1/events. */
export const OTHER_FILTERABLE_EVENT_TYPES = [
  'card.expiring',
  'billing.alert.triggered',
  'subscription_schedule.created',
  'subscription_schedule.completed',
  'subscription_schedule.released',
  'subscription_schedule.canceled',
  'account.limit.approaching',
  'account.limit.reached',
  'account.limit.reset',
  'customer.subscription.created',
  'customer.subscription.deleted',
  'customer.subscription.trial_will_end',
  'customer.subscription.paused',
  'invoice.created',
  'invoice.finalized',
  'invoice.overdue',
  'invoice.upcoming',
  'credit_note.created',
  'entitlements.active_entitlement_summary.updated',
] as const;

export const PUBLIC_EVENT_TYPES = [...EMITTED_EVENT_TYPES, ...OTHER_FILTERABLE_EVENT_TYPES] as const;
export type PublicEventType = (typeof PUBLIC_EVENT_TYPES)[number];
export type EventType = PublicEventType | 'test.ping';
