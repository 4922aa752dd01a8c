import { modeSchema, named, nullable, safeIntegerSchema, timestampSchema } from './json-schema';
import { upgradeRequestSchema } from './upgrade-request';

export const accountSchema = named('Account', {
  type: 'object',
  required: ['object', 'id', 'mode', 'name', 'status', 'plan', 'savedCards', 'dunningEnd', 'proration', 'billingCycleAnchor', 'livePaymentsOpen', 'liveActivatedAt', 'monthlyLimit', 'pendingUpgradeRequest', 'createdAt'],
  properties: {
    object: { const: 'account' },
    id: { type: 'string', pattern: '^acct_[0-9a-z]{24}$' },
    mode: { ...modeSchema, description: 'The mode of the key that asked; `monthlyLimit` is counted in it.' },
    name: { type: 'string' },
    status: { type: 'string', enum: ['not_activated', 'active', 'suspended'] },
    plan: { type: 'string' },
    savedCards: { type: 'boolean', description: 'Whether cards may be kept on file (live checkouts with saveCard need it).' },
    dunningEnd: { type: 'string', enum: ['unpaid', 'canceled'], description: 'What a subscription becomes when every retry of its invoice has failed: `unpaid` (the default; its invoice stays open) or `canceled`. Set by the operator: `kasi merchant set --dunning-end`.' },
    proration: { type: 'string', enum: ['second', 'day'], description: 'How a part period is prorated: by the second (the default) or by the day (whole days, the part rounded down). Set by the operator: `kasi merchant set --proration`.' },
    billingCycleAnchor: { type: 'string', enum: ['now', 'first_of_month'], description: 'The anchor of a subscription made without `billingCycleAnchor` and without a trial: `now` (the default) or `first_of_month`. Set by the operator: `kasi merchant set --billing-cycle-anchor`.' },
    livePaymentsOpen: { type: 'boolean', description: 'True once the account is activated and while it is active.' },
    liveActivatedAt: nullable(timestampSchema),
    monthlyLimit: {
      type: 'object',
      required: ['limitCents', 'usedCents', 'remainingCents', 'periodStart', 'periodEnd'],
      properties: {
        limitCents: { ...safeIntegerSchema, description: 'Card payments the plan allows per month, in this mode.' },
        usedCents: { ...safeIntegerSchema, description: 'Payments that succeeded this month plus those with the processor.' },
        remainingCents: safeIntegerSchema,
        periodStart: { ...timestampSchema, description: 'Midnight on the 1st, Sri Lankan time.' },
        periodEnd: { ...timestampSchema, description: 'When the count resets.' },
      },
    },
    pendingUpgradeRequest: { ...nullable(upgradeRequestSchema), description: 'The upgrade request waiting for an operator\'s decision, if any (POST /v1/account/upgrade_requests).' },
    createdAt: timestampSchema,
  },
});
