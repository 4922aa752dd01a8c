// The card processor's hosted pages: the card form and the 3-D Secure page. The sandbox serves
// them, and so does the gateway simulator (processor/gateway-simulator), with its own texts where
// they differ: both carry the accessible names browser tests find them by (DESIGN.md).
import type { Locale } from '../../domain/locale';
import { formatRupees } from '../../domain/money';
import { escapeHtml, htmlDocument, stylesheet } from '../../web/html';
import { SANDBOX_MESSAGES, type Messages } from './messages';

const PAGE_STYLE = stylesheet(`body{font:17px/1.5 system-ui,sans-serif;margin:0;background:#f3f4f6;color:#111}
main{max-width:28rem;margin:0 auto;padding:1rem}
.card{background:#fff;border:1px solid #c8ccd2;border-radius:8px;padding:1rem}
.banner{background:#fff4ce;border:1px solid #8a6d00;padding:.5rem;border-radius:6px}
label{display:block;margin-top:.8rem;font-weight:600}
input{font:inherit;width:100%;box-sizing:border-box;padding:.6rem;border:1px solid #5f6368;border-radius:6px}
button{font:inherit;margin-top:1rem;width:100%;padding:.75rem;border:0;border-radius:6px;background:#14532d;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#7f1d1d;border:2px solid #7f1d1d}
:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}
[role=alert]{color:#7f1d1d;font-weight:600}`);

export function page(locale: Locale, title: string, body: string): string {
  return htmlDocument(locale, title, PAGE_STYLE, `<main>${body}</main>`);
}

export interface PaymentPageInput {
  locale: Locale;
  merchantName: string;
  amountCents: number;
  /** Where the page's form posts. */
  action: string;
  /** Texts replacing the sandbox's (the simulator's title, banner and test cards). */
  texts?: Partial<Messages>;
}

function textsOf(input: PaymentPageInput): Messages {
  return { ...SANDBOX_MESSAGES[input.locale], ...input.texts };
}

/** The card form: `Card number`, `Expiry (MM/YY)`, `CVV` and a `Pay Rs. …` button. Never filled in. */
export function cardPage(input: PaymentPageInput & { error?: string }): string {
  const t = textsOf(input);
  const amount = formatRupees(input.amountCents);
  const { error } = input;
  return page(input.locale, t.title, `
<p class="banner">${escapeHtml(t.banner)}</p>
<div class="card">
<h1>${escapeHtml(t.title)}</h1>
<p>${escapeHtml(t.payTo)}: <strong>${escapeHtml(input.merchantName)}</strong>, ${escapeHtml(amount)}</p>
${error ? `<p role="alert" id="card-error">${escapeHtml(error)}</p>` : ''}
<form method="post" action="${escapeHtml(input.action)}" autocomplete="off">
<label for="number">${escapeHtml(t.cardNumber)}</label>
<input id="number" name="number" inputmode="numeric" autocomplete="cc-number" required ${error ? 'aria-describedby="card-error"' : ''}>
<label for="expiry">${escapeHtml(t.expiry)}</label>
<input id="expiry" name="expiry" inputmode="numeric" autocomplete="cc-exp" placeholder="MM/YY" required>
<label for="cvv">${escapeHtml(t.cvv)}</label>
<input id="cvv" name="cvv" inputmode="numeric" autocomplete="cc-csc" required>
<button type="submit">${escapeHtml(`${t.pay} ${amount}`)}</button>
</form>
<p><small>${escapeHtml(t.testCards)}</small></p>
</div>`);
}

/** The 3-D Secure page: `Authenticate` (result=pass) and `Fail authentication` (result=fail). */
export function threeDsPage(input: PaymentPageInput & { card: string }): string {
  const t = textsOf(input);
  return page(input.locale, t.threeDsTitle, `
<p class="banner">${escapeHtml(t.banner)}</p>
<div class="card">
<h1>${escapeHtml(t.threeDsTitle)}</h1>
<p>${escapeHtml(t.threeDsText)}</p>
<p>${escapeHtml(input.merchantName)}: ${escapeHtml(formatRupees(input.amountCents))}, ${escapeHtml(input.card)}</p>
<form method="post" action="${escapeHtml(input.action)}">
<button type="submit" name="result" value="pass">${escapeHtml(t.authenticate)}</button>
<button type="submit" name="result" value="fail" class="secondary">${escapeHtml(t.failAuthentication)}</button>
</form>
</div>`);
}
