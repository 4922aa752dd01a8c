// Every kind of customer email in every language: its facts (amount, number, dates in Sri Lankan
// time, the page link) in the subject and text, every value escaped in the HTML, and Sinhala and
// Tamil written in their own scripts.
import assert from 'node:assert/strict';
import { EMAIL_KINDS } from '../../domain/emails';
import { LOCALES } from '../../domain/locale';
import { renderEmail, type EmailContent } from '../../views/emails/render';

// 23:00 on 28 February in Colombo is 17:30Z: the date shown is Colombo's (28 February).
const late = new Date('2027-02-28T17:30:00.000Z');
const link = 'https://pay.example.lk/invoice/in_0mwb?x=1&y=2';
const card = { scheme: 'visa', last4: '4242' } as const;

const contents: Record<(typeof EMAIL_KINDS)[number], EmailContent> = {
  receipt: { kind: 'receipt', amountCents: 350000, description: 'Ceylon tea <250 g>', paidAt: late, card, paymentId: 'pay_0mwb0000000000000000abcd' },
  card_saved: { kind: 'card_saved', card },
  invoice: { kind: 'invoice', number: 'INV-000042', amountCents: 150000, dueDate: late, link },
  invoice_reminder: { kind: 'invoice_reminder', number: 'INV-000042', amountCents: 150000, dueDate: late, link },
  invoice_overdue: { kind: 'invoice_overdue', number: 'INV-000042', amountCents: 150000, dueDate: late, link },
  payment_failed: { kind: 'payment_failed', number: 'INV-000042', amountCents: 150000, nextAttemptAt: late, link },
  trial_will_end: { kind: 'trial_will_end', product: 'Pro plan', trialEnd: late, amountCents: 150000 },
  subscription_canceled: { kind: 'subscription_canceled', product: 'Pro plan', canceledAt: late },
};

/** What each kind must say, whatever the language. */
const facts: Record<(typeof EMAIL_KINDS)[number], string[]> = {
  receipt: ['Rs. 3,500.00', 'Ceylon tea <250 g>', 'Visa •••• 4242', 'pay_0mwb0000000000000000abcd'],
  card_saved: ['Visa •••• 4242'],
  invoice: ['INV-000042', 'Rs. 1,500.00', link],
  invoice_reminder: ['INV-000042', 'Rs. 1,500.00', link],
  invoice_overdue: ['INV-000042', 'Rs. 1,500.00', link],
  payment_failed: ['INV-000042', 'Rs. 1,500.00', link],
  trial_will_end: ['Pro plan', 'Rs. 1,500.00'],
  subscription_canceled: ['Pro plan'],
};

const DATES = { en: '28 February 2027', si: '2027 නවම් 28', ta: '28 பிப்ரவரி, 2027' };
const SCRIPTS = { en: /^[\x20-\x7e\n•]*$/, si: /[\u0D80-\u0DFF]/, ta: /[\u0B80-\u0BFF]/ };

describe('customer emails: rendering', () => {
  for (const locale of LOCALES) {
    for (const kind of EMAIL_KINDS) {
      it(`${kind} in ${locale}: the facts in the text, escaped in the HTML, in the language's script`, () => {
        const email = renderEmail(locale, { merchant: 'Lanka <Tea> & Co', customerName: 'Nimal' }, contents[kind]);
        assert.equal(email.kind, kind);
        for (const fact of [...facts[kind], 'Lanka <Tea> & Co', 'Nimal']) assert.ok(email.text.includes(fact), `${fact} in ${email.text}`);
        assert.ok(email.subject.includes('Lanka <Tea> & Co'), email.subject);
        if (['invoice', 'invoice_reminder', 'invoice_overdue', 'trial_will_end', 'payment_failed', 'receipt', 'subscription_canceled'].includes(kind)) {
          assert.ok(email.text.includes(DATES[locale]), `the Colombo date ${DATES[locale]} in ${email.text}`);
        }
        assert.ok(!email.html.includes('<Tea>'), 'the merchant name is escaped');
        assert.ok(email.html.includes('Lanka &lt;Tea&gt; &amp; Co'));
        assert.ok(email.html.startsWith('<!doctype html>') && email.html.includes(`lang="${locale}"`));
        if (kind !== 'receipt' && kind !== 'card_saved' && kind !== 'trial_will_end' && kind !== 'subscription_canceled') {
          assert.ok(email.html.includes(`href="${link.replace(/&/g, '&amp;')}"`), 'the page link, escaped');
        }
        const words = email.text.replace(/Lanka <Tea> & Co|Nimal|Ceylon tea <250 g>|Pro plan|Kasi|INV-\d+|pay_\w+|Visa|https?:\S+/g, '');
        assert.match(words, SCRIPTS[locale]);
      });
    }
  }

  it('payment_failed says when the card is tried again, or that it is not', () => {
    const retried = renderEmail('en', { merchant: 'M', customerName: null }, contents.payment_failed);
    assert.ok(retried.text.includes('We will try your card again on 28 February 2027.'), retried.text);
    assert.ok(retried.text.startsWith('Hello,\n\n'), 'no name: a plain greeting');
    const last = renderEmail('si', { merchant: 'M', customerName: null }, { ...contents.payment_failed, nextAttemptAt: null } as EmailContent);
    assert.ok(last.text.includes('නැවත අය කිරීමට උත්සාහ නොකරමු'), last.text);
  });

  it('a receipt without a reported card leaves that line out', () => {
    const email = renderEmail('en', { merchant: 'M', customerName: null }, { ...contents.receipt, card: null } as EmailContent);
    assert.ok(!email.text.includes('Paid with'), email.text);
  });

  it('an invoice with a discount or taxes shows its credit below the total, so that its amounts read down to the amount due', () => {
    const summary = { subtotalCents: 150000, discount: { couponName: 'Ten off', amountCents: 15000 }, taxes: [{ name: 'VAT', percentage: 18, inclusive: false, amountCents: 23707 }], totalCents: 158707 };
    const email = renderEmail('en', { merchant: 'M', customerName: null }, { ...contents.invoice, amountCents: 133707, summary, credit: { appliedCents: 20000, notesCents: 5000 } } as EmailContent);
    const at = (text: string, line: string) => text.indexOf(line);
    const lines = ['Subtotal: Rs. 1,500.00', 'Total: Rs. 1,587.07', 'Credit applied from your balance: -Rs. 200.00', 'Credit notes: -Rs. 50.00'];
    for (const body of [email.text, email.html.replace(/<\/td><td[^>]*>/g, ': ')]) {
      const found = lines.map((line) => at(body, line));
      assert.ok(found.every((i, n) => i >= 0 && (n === 0 || i > found[n - 1]!)), `${lines.join(' | ')} in this order:\n${body}`);
    }
    // Without a summary, the credit stays under the paragraph that names the amount due.
    const plain = renderEmail('en', { merchant: 'M', customerName: null }, { ...contents.invoice, credit: { appliedCents: 20000, notesCents: 0 } } as EmailContent);
    assert.ok(at(plain.text, 'Rs. 1,500.00') < at(plain.text, 'Credit applied') && at(plain.text, 'Credit applied') < at(plain.text, 'Please pay'), plain.text);
  });
});
