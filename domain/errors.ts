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
  /** Hosted-page reasons are documented here but never returned by the REST API. */
  hostedPagesOnly?: true;
}

export const REASONS = {
  json_required: { code: 'VALIDATION_FAILED', when: 'A write was sent without `Content-Type: application/json`.' },
  invalid_json: { code: 'VALIDATION_FAILED', when: 'The body is not parseable JSON.' },
  idempotency_key_missing: { code: 'VALIDATION_FAILED', when: 'A write that needs an `Idempotency-Key` header came without one, or with one not matching `^[A-Za-z0-9_\\-:.]{8,255}$`.' },
  amount: { code: 'VALIDATION_FAILED', when: 'A payment outside 1000..100000000 cents, or a refund under 100 cents or over what is left to refund.' },
  billing_date_invalid: { code: 'VALIDATION_FAILED', when: 'A trial end, cancel date or resume date is not after now and within two years.' },
  billing_cycle_anchor_invalid: { code: 'VALIDATION_FAILED', when: 'The anchor is not `now`, `first_of_month` (monthly or yearly prices only) or a time after now within one period.' },
  items_invalid: { code: 'VALIDATION_FAILED', when: 'Items are not active prices of yours, are duplicated, have different intervals, or none would be left.' },
  price_invalid: { code: 'VALIDATION_FAILED', when: 'The terms cannot price anything: tiers not 2 to 10 with ascending `upTo` and the last one open, a field the billing scheme needs missing or one it does not take sent, a licensed per-unit price under 1000 cents.' },
  meter_invalid: { code: 'VALIDATION_FAILED', when: 'No active meter of this mode has that id or event name.' },
  body_too_large: { code: 'VALIDATION_FAILED', status: 413, when: 'The body is over 256 kB (262144 bytes).' },
  missing_api_key: { code: 'UNAUTHENTICATED', when: 'No `Authorization` header was sent.' },
  malformed_api_key: { code: 'UNAUTHENTICATED', when: 'The `Authorization` header is not `Bearer` and one key, or the token is not shaped like a key: cut short, extra characters, or another kind of token.' },
  unknown_api_key: { code: 'UNAUTHENTICATED', when: 'No active key matches: revoked, an agent key past its end date, or a key of another environment.' },
  key_not_permitted: { code: 'FORBIDDEN', when: 'The key\'s kind may not use this endpoint (a publishable key anywhere but `POST /v1/checkouts`, an agent key on any REST endpoint), or the key lacks the endpoint\'s permission.' },
  origin_not_allowed: { code: 'FORBIDDEN', when: 'A browser on another site called the API: cross-origin requests are answered only for the service\'s own origins.' },
  unknown_endpoint: { code: 'NOT_FOUND', when: 'The path or method is not part of the API (paths are lower case and start with `/v1/`).' },
  mode_mismatch: { code: 'NOT_FOUND', when: 'The object exists in the other mode: use a key of its mode.' },
  idempotency_key_reused: { code: 'CONFLICT', when: 'The `Idempotency-Key` was used within 24 hours with a different body, method or path.' },
  idempotency_key_in_progress: { code: 'CONFLICT', when: 'The first request with this `Idempotency-Key` is still running. Safe to retry after a short wait.' },
  merchant_not_live: { code: 'CONFLICT', when: 'A live request before the account is approved and activated, or while it is not active.' },
  merchant_unavailable: { code: 'CONFLICT', when: 'The account cannot take payments (suspended).' },
  not_refundable: { code: 'CONFLICT', when: 'The payment is not `succeeded` or `partially_refunded`.' },
  saved_cards_off: { code: 'CONFLICT', when: '`saveCard` true (or a live subscription) while saved cards are off for the account.' },
  card_not_reusable: { code: 'CONFLICT', when: 'The saved card lacks what the processor needs, was saved by the simulator, or is not this customer\'s.' },
  price_unavailable: { code: 'CONFLICT', when: 'The price (or its product) is archived or in the other mode.' },
  subscription_ended: { code: 'CONFLICT', when: 'The subscription is `canceled` or `incomplete_expired`.' },
  subscription_change_refused: { code: 'CONFLICT', when: 'The change is not allowed in the subscription\'s status.' },
  invoice_not_open: { code: 'CONFLICT', when: 'Charge, void, mark uncollectible or send on an invoice that is not open (void is also allowed on a draft).' },
  invoice_payment_pending: { code: 'CONFLICT', when: 'A charge for the invoice is with the processor.' },
  no_card_on_file: { code: 'CONFLICT', when: 'The invoice\'s card (the subscription\'s or the customer\'s default) was never saved or was deleted.' },
  coupon_invalid: { code: 'CONFLICT', when: 'The coupon is archived, used up, past its redeem-by date, or of the other mode.' },
  tax_rate_invalid: { code: 'CONFLICT', when: 'The tax rate is archived, of the other mode, or not yours.' },
  feature_exists: { code: 'CONFLICT', when: 'The lookup key already names a feature in this mode.' },
  meter_exists: { code: 'CONFLICT', when: 'The event name is already counted by a meter in this mode.' },
  monthly_limit_reached: { code: 'CONFLICT', when: 'The payment would take the month past the plan\'s monthly limit.' },
  upgrade_request_pending: { code: 'CONFLICT', when: 'The account already has an upgrade request waiting for a decision: one at a time.' },
  promotion_invalid: { code: 'VALIDATION_FAILED', when: 'Hosted pages: the promotion code is not valid.', hostedPagesOnly: true },
  card_number_refused: { code: 'VALIDATION_FAILED', when: 'Hosted pages: the typed text looks like a card number (13 to 19 digits passing the Luhn check); nothing was stored.', hostedPagesOnly: true },
  order_invalid: { code: 'VALIDATION_FAILED', when: 'Hosted pages: the order cannot be placed as sent.', hostedPagesOnly: true },
  details_invalid: { code: 'VALIDATION_FAILED', when: 'Hosted pages: the customer details are not valid.', hostedPagesOnly: true },
  not_open: { code: 'CONFLICT', when: 'Hosted pages: the checkout is paid or closed and cannot be paid again.', hostedPagesOnly: true },
  expired: { code: 'CONFLICT', when: 'Hosted pages: the checkout expired 30 minutes after it was created.', hostedPagesOnly: true },
  link_inactive: { code: 'CONFLICT', when: 'Hosted pages: the payment link is turned off.', hostedPagesOnly: true },
  page_inactive: { code: 'CONFLICT', when: 'Hosted pages: the page is turned off.', hostedPagesOnly: true },
  page_closed: { code: 'CONFLICT', when: 'Hosted pages: the page is closed.', hostedPagesOnly: true },
  portal_action_refused: { code: 'CONFLICT', when: 'Hosted pages: the portal refused the action.', hostedPagesOnly: true },
  page_busy: { code: 'CONFLICT', when: 'Hosted pages: the page is busy with another action.', hostedPagesOnly: true },
  page_changed: { code: 'CONFLICT', when: 'Hosted pages: the page changed since it was shown.', hostedPagesOnly: true },
  page_not_ready: { code: 'CONFLICT', when: 'Hosted pages: the page is not ready yet.', hostedPagesOnly: true },
  promotion_limited: { code: 'RATE_LIMITED', when: 'Hosted pages: too many promotion attempts.', hostedPagesOnly: true },
} as const satisfies Record<string, ReasonEntry>;

export type Reason = keyof typeof REASONS;

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
