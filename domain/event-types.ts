// Event types. Public events are listed by GET /v1/events and sent to webhooks; `test.ping` goes
// only to the one endpoint it is sent to and is never listed. docs/reference/events.md shows each
// sent type with a payload from a run (kept true by test/docs/events-reference.test.ts).
export const SENT_EVENT_TYPES = [
  'payment.succeeded',
  'payment.failed',
  'checkout.expired',
  'card.saved',
  'card.save_failed',
  'card.expiring',
  'refund.succeeded',
  'refund.failed',
  'account.limit.approaching',
  'account.limit.reached',
  'account.limit.reset',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'customer.subscription.trial_will_end',
  'customer.subscription.paused',
  'customer.subscription.resumed',
  'invoice.created',
  'invoice.finalized',
  'invoice.sent',
  'invoice.paid',
  'invoice.payment_failed',
  'invoice.voided',
  'invoice.marked_uncollectible',
  'invoice.overdue',
  'invoice.upcoming',
  'credit_note.created',
  'entitlements.active_entitlement_summary.updated',
] as const;

/** Types the spec lists, which the `type` filter of GET /v1/events takes, that this version never sends yet. */
export const NOT_YET_SENT_EVENT_TYPES = [
  'billing.alert.triggered',
  'subscription_schedule.created',
  'subscription_schedule.completed',
  'subscription_schedule.released',
  'subscription_schedule.canceled',
] as const;

export const PUBLIC_EVENT_TYPES = [...SENT_EVENT_TYPES, ...NOT_YET_SENT_EVENT_TYPES] as const;
export type PublicEventType = (typeof PUBLIC_EVENT_TYPES)[number];
export type EventType = PublicEventType | 'test.ping';
