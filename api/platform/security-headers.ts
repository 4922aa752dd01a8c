// Headers every answer carries, pages and API alike: pages load nothing but their own stylesheet
// and fonts and run no script, no other site may frame them (the checkout page is a payment
// form: clickjacking), browsers take declared content types at their word, no referrer leaves
// for another site (a checkout's URL is its only credential; same-origin rather than no-referrer,
// under which browsers send `Origin: null` on the page's own form posts), and behind https the
// browser stays on https.
import type { Next } from 'koa';
import type { ApiContext } from './context';

// No form-action: the checkout's form and the processor's 3-D Secure step end, through
// redirects that form-action also governs, on the merchant's success page, on any origin.
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "style-src 'self'",
  "font-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function securityHeaders(options: { https: boolean }) {
  const headers: Record<string, string> = {
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
    ...(options.https ? { 'Strict-Transport-Security': 'max-age=31536000; includeSubDomains' } : {}),
  };
  // Not async: it only sets headers and goes on (see trace-id.ts).
  return (ctx: ApiContext, next: Next) => {
    ctx.set(headers);
    return next();
  };
}
