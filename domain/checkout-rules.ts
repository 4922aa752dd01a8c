// The rules of a new checkout that JSON Schema cannot say: amounts (reason `amount`), the line
// items' order and summary, and where the customer may be sent back to.
import { ApiError, type FieldError } from './errors';
import type { Locale } from './locale';

export const PAYMENT_MIN_CENTS = 1_000;
export const PAYMENT_MAX_CENTS = 100_000_000;
export const CHECKOUT_LIFETIME_MS = 30 * 60 * 1000;
/**
 * How long after an attempt is handed to the processor (and again after each answer of "still
 * pending") the checkout's workflow asks the processor itself, so an approved payment whose
 * customer never comes back settles without waiting for the expiry.
 */
export const OUTCOME_POLL_MS = 60 * 1000;

export interface LineItemInput {
  name: string;
  description?: string;
  unitAmountCents: number;
  quantity: number;
}

export interface OrderLine {
  id: string;
  name: string;
  description?: string;
  quantity: number;
  unitAmountCents: number;
  amountCents: number;
  suggested: boolean;
}

export interface Order {
  lines: OrderLine[];
  subtotalCents: number;
  discount: null;
  shipping: null;
  tax: null;
  totalCents: number;
}

export function amountInRange(cents: number): boolean {
  return cents >= PAYMENT_MIN_CENTS && cents <= PAYMENT_MAX_CENTS;
}

/** Lines `line-1`, `line-2`, ... in the order sent; the total is what the customer pays. */
export function orderFromLineItems(items: readonly LineItemInput[]): Order {
  const lines = items.map((item, i): OrderLine => ({
    id: `line-${i + 1}`,
    name: item.name,
    ...(item.description !== undefined ? { description: item.description } : {}),
    quantity: item.quantity,
    unitAmountCents: item.unitAmountCents,
    amountCents: item.unitAmountCents * item.quantity,
    suggested: false,
  }));
  const subtotalCents = lines.reduce((sum, line) => sum + line.amountCents, 0);
  return { lines, subtotalCents, discount: null, shipping: null, tax: null, totalCents: subtotalCents };
}

/** "2 × Tea, 1 × Cake", cut to the description's 120 characters with an ellipsis. */
export function summariseLineItems(items: readonly LineItemInput[]): string {
  const text = items.map((item) => `${item.quantity} × ${item.name}`).join(', ');
  return text.length <= 120 ? text : `${text.slice(0, 119)}…`;
}

/** The return URLs given (`successUrl`, `cancelUrl`) that a browser may not be sent to, each with why. */
export function returnUrlFields(input: { successUrl?: string; cancelUrl?: string }): FieldError[] {
  return (['successUrl', 'cancelUrl'] as const).flatMap((name) => {
    const problem = input[name] === undefined ? null : returnUrlProblem(input[name]);
    return problem === null ? [] : [{ path: name, message: problem }];
  });
}

// Schemes a browser must never be sent to, even as an "app" scheme.
const UNSAFE_SCHEMES = new Set(['javascript', 'data', 'vbscript', 'file', 'blob', 'about', 'filesystem', 'ftp', 'ws', 'wss', 'mailto', 'tel', 'http', 'https']);
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** https anywhere, http only on localhost, or an app's own URL scheme (`myapp://...`). */
export function returnUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'Must be an absolute URL.';
  }
  const scheme = url.protocol.slice(0, -1);
  if (scheme === 'https') return url.hostname ? null : 'Must name a host.';
  if (scheme === 'http') return LOCAL_HOSTS.has(url.hostname) ? null : 'Must use https (http only on localhost).';
  if (UNSAFE_SCHEMES.has(scheme) || !/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    return 'Must use https, http on localhost, or an app URL scheme such as myapp://.';
  }
  return null;
}

/** `{checkout_url}/checkout/<id>`, with `/si` or `/ta` before `checkout` for those locales. */
export function checkoutUrl(publicBaseUrl: string, id: string, locale: Locale): string {
  return `${publicBaseUrl}${locale === 'en' ? '' : `/${locale}`}/checkout/${id}`;
}

/**
 * A payment that was paid: it succeeded, whatever refunds followed. Its card may still be kept (a
 * refund made before the card was kept does not take back the customer's consent).
 */
export const PAID_PAYMENT_STATUSES = ['succeeded', 'partially_refunded', 'refunded'] as const;

export function isPaid(paymentStatus: string): boolean {
  return (PAID_PAYMENT_STATUSES as readonly string[]).includes(paymentStatus);
}

/**
 * Why a checkout can take no payment now, or null while it can: paid (`not_open`), or expired or
 * past its time (`expired`, even before its workflow has closed it).
 */
export function checkoutClosure(
  checkout: { status: 'open' | 'completed' | 'expired'; expires_at: Date },
  paymentStatus: string,
  now: Date,
): 'not_open' | 'expired' | null {
  if (checkout.status === 'completed' || isPaid(paymentStatus)) return 'not_open';
  if (checkout.status === 'expired' || now >= checkout.expires_at) return 'expired';
  return null;
}

/** The refusal a closed checkout answers Pay with (null while it can take a payment). */
export function checkoutClosureRefusal(
  checkout: { status: 'open' | 'completed' | 'expired'; expires_at: Date },
  paymentStatus: string,
  now: Date,
): ApiError | null {
  const closure = checkoutClosure(checkout, paymentStatus, now);
  if (closure === null) return null;
  return new ApiError(closure, closure === 'expired' ? 'The checkout has expired.' : 'The checkout is paid or closed.');
}
