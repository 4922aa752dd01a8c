// The one table of error codes and reasons. The API's error bodies, the error documentation page
// and the OpenAPI document are all generated from it; a service fails only with these.

export const ERROR_CODES = {
  VALIDATION_FAILED: { status: 400, meaning: 'The request is not valid: fix it before sending it again.' },
  UNAUTHENTICATED: { status: 401, meaning: 'No usable API key was sent.' },
  FORBIDDEN: { status: 403, meaning: 'The key may not do this.' },
  NOT_FOUND: { status: 404, meaning: 'No such object or endpoint for this key.' },
  CONFLICT: { status: 409, meaning: 'The request conflicts with the state of an object or of the account.' },
  RATE_LIMITED: { status: 429, meaning: 'Too many requests: wait for the seconds in Retry-After, then retry.' },
  INTERNAL: { status: 500, meaning: 'Something failed on our side. Retry with the same Idempotency-Key.' },
  NOT_SUPPORTED: { status: 501, meaning: 'The endpoint exists but is not built or not switched on.' },
  SERVICE_UNAVAILABLE: { status: 503, meaning: 'Temporarily unavailable: retry after a short wait.' },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

interface ReasonEntry {
  code: ErrorCode;
  /** Only where it differs from the code's status (body_too_large is 413). */
  status?: number;
  when: string;
  /** What the caller does about it: short and actionable, for a merchant's engineer. */
  fix: string;
  /** Hosted-page reasons are documented here but never returned by the REST API. */
  hostedPagesOnly?: true;
}

export const REASONS = {
  json_required: {
    code: 'VALIDATION_FAILED',
    when: 'A write was sent without `Content-Type: application/json`.',
    fix: 'Send the body as JSON with the header `Content-Type: application/json` (most HTTP clients set it when given a JSON body).',
  },
  invalid_json: {
    code: 'VALIDATION_FAILED',
    when: 'The body is not parseable JSON.',
    fix: 'Send one valid JSON object: check quoting, trailing commas and that the body is not cut short; build it with your language\'s JSON encoder, not by hand.',
  },
  idempotency_key_missing: {
    code: 'VALIDATION_FAILED',
    when: 'A write that needs an `Idempotency-Key` header came without one, or with one not matching `^[A-Za-z0-9_\\-:.]{8,255}$`.',
    fix: 'Add an `Idempotency-Key` header of 8 to 255 letters, digits, `_`, `-`, `:` or `.` to the request: a UUID made once per operation and sent again, unchanged, on its retries.',
  },
  amount: {
    code: 'VALIDATION_FAILED',
    when: 'A payment outside 1000..100000000 cents, or a refund under 100 cents or over what is left to refund.',
    fix: 'Keep a payment between 1000 and 100000000 cents (Rs. 10 to Rs. 1,000,000); refund at least 100 cents and no more than the payment\'s amount less `refundedCents`.',
  },
  billing_date_invalid: {
    code: 'VALIDATION_FAILED',
    when: 'A trial end, cancel date, resume date or coupon redeem-by date is not after now and within two years.',
    fix: 'Send a time after now and within two years, in ISO 8601 with a zone (e.g. `2026-03-01T00:00:00+05:30`); on a test clock, "now" is the clock\'s frozen time.',
  },
  billing_cycle_anchor_invalid: {
    code: 'VALIDATION_FAILED',
    when: 'The anchor is not `now`, `first_of_month` (monthly or yearly prices only) or a time after now within one period.',
    fix: 'Send `now`, `first_of_month` (monthly or yearly prices only), or a time after now within one period; with a trial, leave the anchor out (the trial\'s end is the anchor).',
  },
  items_invalid: {
    code: 'VALIDATION_FAILED',
    when: 'Items are not active prices of yours, are duplicated, have different intervals, or none would be left.',
    fix: 'Send 1 to 10 items, each an active price id of your account and mode, each price once, all with the same interval and interval count.',
  },
  price_invalid: {
    code: 'VALIDATION_FAILED',
    when: 'The terms cannot price anything: tiers not 2 to 10 with ascending `upTo` and the last one open, a field the billing scheme needs missing or one it does not take sent, a licensed per-unit price under 1000 cents.',
    fix: 'Send the fields your `billingScheme` needs and no others: `unitAmountCents` (at least 1000 for a licensed per-unit price) or `tiers` (2 to 10, ascending `upTo`, the last one `null`).',
  },
  meter_invalid: {
    code: 'VALIDATION_FAILED',
    when: 'No active meter of this mode has that id or event name.',
    fix: 'Use the id or event name of an active meter of this mode.',
  },
  feature_invalid: {
    code: 'VALIDATION_FAILED',
    when: 'No active feature of this mode has that id.',
    fix: 'Use the id of an active feature of this mode (`GET /v1/entitlements/features?active=true`); a test feature cannot be attached to a live product, nor the other way round, and an archived one must be brought back (`active: true`) first.',
  },
  body_too_large: {
    code: 'VALIDATION_FAILED',
    status: 413,
    when: 'The body is over 256 kB (262144 bytes).',
    fix: 'Keep the body under 256 kB: send fewer items per request, or shorten long text fields.',
  },
  missing_api_key: {
    code: 'UNAUTHENTICATED',
    when: 'No `Authorization` header was sent.',
    fix: 'Send `Authorization: Bearer <key>` with a secret key (`sk_test_…` or `sk_live_…`); make one with `npx kasi key create`.',
  },
  malformed_api_key: {
    code: 'UNAUTHENTICATED',
    when: 'The `Authorization` header is not `Bearer` and one key, or the token is not shaped like a key: cut short, extra characters, or another kind of token.',
    fix: 'Send exactly `Authorization: Bearer <key>`, the whole key as it was shown, with no quotes, spaces or line breaks around it.',
  },
  unknown_api_key: {
    code: 'UNAUTHENTICATED',
    when: 'No active key matches: revoked, an agent key past its end date, or a key of another environment.',
    fix: 'Use an active key made on this server for this environment; a revoked key or an agent key past its end date never works again: make a new one (`npx kasi key create`).',
  },
  key_not_permitted: {
    code: 'FORBIDDEN',
    when: 'The key\'s kind may not use this endpoint (a publishable key anywhere but `POST /v1/checkouts`, an agent key on any REST endpoint), or the key lacks the endpoint\'s permission.',
    fix: 'Call this endpoint from your server with a secret key holding its permission (the API reference names it); a publishable key may only create checkouts, and an agent key uses no REST endpoint.',
  },
  origin_not_allowed: {
    code: 'FORBIDDEN',
    when: 'A browser on another site called the API: cross-origin requests are answered only for the service\'s own origins.',
    fix: 'Call the API from your server, never from a browser page; send customers to the hosted pages instead.',
  },
  unknown_endpoint: {
    code: 'NOT_FOUND',
    when: 'The path or method is not part of the API (paths are lower case and start with `/v1/`).',
    fix: 'Check the method and path against the API reference: lower case, starting with `/v1/`, no trailing slash.',
  },
  mode_mismatch: {
    code: 'NOT_FOUND',
    when: 'The object exists in the other mode: use a key of its mode.',
    fix: 'Use a key of the object\'s mode: `sk_test_…` for test objects, `sk_live_…` for live ones.',
  },
  idempotency_key_reused: {
    code: 'CONFLICT',
    when: 'The `Idempotency-Key` was used within 24 hours with a different body, method or path.',
    fix: 'Use a new `Idempotency-Key` for each new operation; reuse a key only to retry the very same request (same method, path and body).',
  },
  idempotency_key_in_progress: {
    code: 'CONFLICT',
    when: 'The first request with this `Idempotency-Key` is still running. Safe to retry after a short wait.',
    fix: 'Wait a second and retry the same request with the same `Idempotency-Key`: you will get the first request\'s answer.',
  },
  merchant_not_live: {
    code: 'CONFLICT',
    when: 'A live request before the account is approved and activated, or while it is not active.',
    fix: 'Use test keys until the account is activated for live payments (`npx kasi merchant activate <accountId>`, by whoever runs your Kasi); a suspended account takes live requests again once it is active.',
  },
  merchant_unavailable: {
    code: 'CONFLICT',
    when: 'The account cannot take payments (suspended).',
    fix: 'The account is suspended: ask whoever runs your Kasi why; payments resume once it is set active again (`npx kasi merchant set <accountId> --status active`).',
  },
  not_refundable: {
    code: 'CONFLICT',
    when: 'The payment is not `succeeded` or `partially_refunded`.',
    fix: 'Refund only a payment that is `succeeded` or `partially_refunded`: read the payment\'s `status` first; one fully refunded has nothing left.',
  },
  saved_cards_off: {
    code: 'CONFLICT',
    when: '`saveCard` true (or a live subscription) while saved cards are off for the account.',
    fix: 'Send `saveCard` false, or have saved cards turned on for the account first (`npx kasi merchant set <accountId> --saved-cards on`, by whoever runs your Kasi).',
  },
  card_not_reusable: {
    code: 'CONFLICT',
    when: 'The saved card was deleted, the processor (in test mode, the sandbox) holds nothing to charge it with, or it is not this customer\'s.',
    fix: 'Charge a card kept for this customer with the processor (from `card.saved`); a deleted card, one the processor or sandbox did not keep, or another customer\'s cannot be used: have the customer pay at a checkout that keeps the card.',
  },
  price_unavailable: {
    code: 'CONFLICT',
    when: 'The price (or its product) is archived or in the other mode.',
    fix: 'Use an active price of this mode; an archived price stays archived, so create a new price instead.',
  },
  subscription_ended: {
    code: 'CONFLICT',
    when: 'The subscription is `canceled` or `incomplete_expired`.',
    fix: 'The subscription is over and cannot change: create a new subscription for the customer.',
  },
  subscription_change_refused: {
    code: 'CONFLICT',
    when: 'The change is not allowed in the subscription\'s status.',
    fix: 'Read the subscription\'s `status` first: change `trialEnd` only while `trialing`; resume a paused one only after the customer has a card on file; wait for a change already waiting to take effect.',
  },
  invoice_not_open: {
    code: 'CONFLICT',
    when: 'Charge, void, mark uncollectible or send on an invoice that is not open (void is also allowed on a draft); a credit note on an invoice that is not open or paid.',
    fix: 'Read the invoice\'s `status` first: charge or mark uncollectible only an `open` invoice, send only an open one collected by sending (`send_invoice`), void only a `draft` or `open` one, issue a credit note only on an `open` or `paid` one; finalise a draft first.',
  },
  invoice_payment_pending: {
    code: 'CONFLICT',
    when: 'A charge for the invoice is with the processor.',
    fix: 'A charge of the invoice is with the bank: wait for `invoice.paid` or `invoice.payment_failed` (seconds), then act on its new status.',
  },
  no_card_on_file: {
    code: 'CONFLICT',
    when: 'The invoice\'s card (the subscription\'s or the customer\'s default) was never saved or was deleted.',
    fix: 'Have the customer pay on the invoice\'s page (`hostedInvoiceUrl`), which keeps their card, or set the subscription\'s `cardId` to a card they have kept.',
  },
  invoice_item_invoiced: {
    code: 'CONFLICT',
    when: 'A delete of an invoice item that is already on an invoice.',
    fix: 'An item on an invoice stays there: void that invoice, or issue a credit note on it (`POST /v1/credit_notes`) to give the amount back.',
  },
  credit_note_amount: {
    code: 'VALIDATION_FAILED',
    when: 'A credit note of 0, one that with the invoice\'s other credit notes comes to more than its total, or whose `refundCents` and `creditCents` do not add up to `amountCents`.',
    fix: 'Keep the invoice\'s credit notes together at most its `totalCents` (less its `creditNotesCents` so far); on a paid invoice send `refundCents` and `creditCents` adding up to `amountCents`, or neither (all refunded).',
  },
  coupon_invalid: {
    code: 'CONFLICT',
    when: 'The coupon is archived, used up, past its redeem-by date, of the other mode, or not yours (or no coupon at all).',
    fix: 'Use an active coupon of this mode that still has redemptions left and whose redeem-by date has not passed.',
  },
  tax_rate_invalid: {
    code: 'CONFLICT',
    when: 'The tax rate is archived, of the other mode, or not yours (or no tax rate at all).',
    fix: 'Use an active tax rate of your account in this mode.',
  },
  feature_exists: {
    code: 'CONFLICT',
    when: 'The lookup key already names a feature in this mode.',
    fix: 'Choose another lookup key, or use the feature that already has it.',
  },
  meter_exists: {
    code: 'CONFLICT',
    when: 'The event name is already counted by a meter in this mode.',
    fix: 'Use the meter that already counts this event name, or choose another event name.',
  },
  monthly_limit_reached: {
    code: 'CONFLICT',
    when: 'The payment would take the month past the plan\'s monthly limit.',
    fix: 'Wait for the reset at midnight on the 1st (Sri Lankan time), or ask for a higher plan (`POST /v1/account/upgrade_requests`); the payment was refused whole, so nothing was charged.',
  },
  upgrade_request_pending: {
    code: 'CONFLICT',
    when: 'The account already has an upgrade request waiting for a decision: one at a time.',
    fix: 'Wait for the decision on the request you already made (`GET /v1/account` shows it) before asking again.',
  },
  promotion_invalid: {
    code: 'VALIDATION_FAILED',
    when: 'Hosted pages: the promotion code is not valid.',
    fix: 'The customer should check the code or pay without one.',
    hostedPagesOnly: true,
  },
  card_number_refused: {
    code: 'VALIDATION_FAILED',
    when: 'Hosted pages: the typed text looks like a card number (13 to 19 digits passing the Luhn check); nothing was stored.',
    fix: 'Tell the customer not to type card numbers into text fields; the card goes only on the processor\'s page.',
    hostedPagesOnly: true,
  },
  order_invalid: {
    code: 'VALIDATION_FAILED',
    when: 'Hosted pages: the order cannot be placed as sent.',
    fix: 'The customer should reload the page and place the order again.',
    hostedPagesOnly: true,
  },
  details_invalid: {
    code: 'VALIDATION_FAILED',
    when: 'Hosted pages: the customer details are not valid.',
    fix: 'The customer should correct the fields the page marks (name, email, phone).',
    hostedPagesOnly: true,
  },
  not_open: {
    code: 'CONFLICT',
    when: 'Hosted pages: the checkout is paid or closed and cannot be paid again.',
    fix: 'Nothing to do: the checkout is already paid or closed; create a new checkout for a new payment.',
    hostedPagesOnly: true,
  },
  expired: {
    code: 'CONFLICT',
    when: 'Hosted pages: the checkout expired 30 minutes after it was created.',
    fix: 'Create a new checkout and send the customer its URL; a checkout lives 30 minutes.',
    hostedPagesOnly: true,
  },
  link_inactive: {
    code: 'CONFLICT',
    when: 'Hosted pages: the payment link is turned off.',
    fix: 'Turn the payment link on again, or share an active one.',
    hostedPagesOnly: true,
  },
  page_inactive: {
    code: 'CONFLICT',
    when: 'Hosted pages: the page is turned off.',
    fix: 'Turn the page on again, or share an active one.',
    hostedPagesOnly: true,
  },
  page_closed: {
    code: 'CONFLICT',
    when: 'Hosted pages: the page is closed.',
    fix: 'Nothing more can be done on this page; create a new one if the customer still has to act.',
    hostedPagesOnly: true,
  },
  portal_action_refused: {
    code: 'CONFLICT',
    when: 'Hosted pages: the portal refused the action.',
    fix: 'The customer should reload the portal and choose among the actions it offers now.',
    hostedPagesOnly: true,
  },
  page_busy: {
    code: 'CONFLICT',
    when: 'Hosted pages: the page is busy with another action.',
    fix: 'The customer should wait a moment and try again: another action on the page is still running.',
    hostedPagesOnly: true,
  },
  page_changed: {
    code: 'CONFLICT',
    when: 'Hosted pages: the page changed since it was shown.',
    fix: 'The customer should reload the page to see its current state, then try again.',
    hostedPagesOnly: true,
  },
  page_not_ready: {
    code: 'CONFLICT',
    when: 'Hosted pages: the page is not ready yet.',
    fix: 'The customer should wait a few seconds and reload the page.',
    hostedPagesOnly: true,
  },
  promotion_limited: {
    code: 'RATE_LIMITED',
    when: 'Hosted pages: too many promotion attempts.',
    fix: 'The customer should wait a minute before trying another code.',
    hostedPagesOnly: true,
  },
} as const satisfies Record<string, ReasonEntry>;

export type Reason = keyof typeof REASONS;

/**
 * The reasons in the table that nothing in this version raises (nor a hosted page shows): kept so
 * that clients can match them and their docs anchors stay where later versions will raise them,
 * and marked "not raised in this version" on the errors pages. test/docs/errors-reference.test.ts
 * checks that these are exactly the reasons no source file names.
 */
export const NOT_RAISED_IN_THIS_VERSION: readonly Reason[] = [
  'promotion_invalid',
  'page_inactive',
  'page_closed',
  'portal_action_refused',
  'page_busy',
  'page_not_ready',
  'promotion_limited',
];

export interface FieldError {
  path: string;
  message: string;
}

/**
 * The one error a service raises. `reason` is present when it says more than the code; the
 * platform turns it into the spec's error body.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly reason: Reason | undefined;
  readonly status: number;
  readonly fields: FieldError[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    codeOrReason: ErrorCode | Reason,
    message: string,
    options: { fields?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    if (codeOrReason in ERROR_CODES) {
      this.code = codeOrReason as ErrorCode;
      this.reason = undefined;
      this.status = ERROR_CODES[this.code].status;
    } else {
      const entry: ReasonEntry = REASONS[codeOrReason as Reason];
      this.code = entry.code;
      this.reason = codeOrReason as Reason;
      this.status = entry.status ?? ERROR_CODES[entry.code].status;
    }
    this.fields = options.fields;
    this.headers = options.headers ?? {};
  }
}

/** The anchor of an error on the documentation page: the reason, else the code in lower case. */
export function errorAnchor(code: ErrorCode, reason: Reason | undefined): string {
  return reason ?? code.toLowerCase();
}
