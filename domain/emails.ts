// The kinds of customer email (DESIGN.md's contract for `kasi emails`).
export const EMAIL_KINDS = ['receipt', 'invoice', 'invoice_reminder', 'invoice_overdue', 'payment_failed', 'trial_will_end', 'subscription_canceled', 'card_saved'] as const;
export type EmailKind = (typeof EMAIL_KINDS)[number];
