// Keep a customer email: rendered in the customer's language (views/emails), written to the
// `emails` table in the caller's transaction (or statement), and sent from there by the email
// sender once committed, when SMTP_URL is set (services/emails/deliver.ts). Its time is the
// caller's: a test clock's for a customer on one.
import { newId } from '../../crypto/ids';
import type { Mode } from '../../domain/api-keys';
import type { Locale } from '../../domain/locale';
import type { CustomerRow } from '../../db/customers';
import { insertEmail, type NewEmailRow } from '../../db/emails';
import { renderEmail, type EmailContent, type EmailParties } from '../../views/emails/render';
import type { ServiceContext } from '../context';

export interface EmailToKeep {
  accountId: string;
  mode: Mode;
  to: string;
  locale: Locale;
  parties: EmailParties;
  content: EmailContent;
  /** The payment, invoice, subscription or card it is about. */
  objectId: string;
  at: Date;
}

/** The row of an email to keep, rendered. */
export function emailRow(email: EmailToKeep): NewEmailRow {
  const rendered = renderEmail(email.locale, email.parties, email.content);
  return {
    id: newId('email', email.at.getTime()),
    account_id: email.accountId,
    mode: email.mode,
    to: email.to,
    kind: rendered.kind,
    locale: email.locale,
    subject: rendered.subject,
    text: rendered.text,
    html: rendered.html,
    object_id: email.objectId,
    created_at: email.at,
  };
}

/** Keeps the email in `ctx`'s transaction: it goes out only if that commits. */
export async function keepEmail(ctx: Pick<ServiceContext, 'db'>, email: EmailToKeep): Promise<void> {
  await insertEmail(ctx.db, emailRow(email));
}

/** Where an email to an account's customer goes, in their language, and who it comes from. */
export async function customerRecipient(ctx: Pick<ServiceContext, 'db'>, accountId: string, customerId: string): Promise<Pick<EmailToKeep, 'to' | 'locale' | 'parties'>> {
  const customer = (await ctx.db('customers').where({ id: customerId }).first('email', 'locale', 'name')) as Pick<CustomerRow, 'email' | 'locale' | 'name'>;
  const merchant = (await ctx.db('accounts').where({ id: accountId }).first('name')) as { name: string };
  return { to: customer.email, locale: customer.locale, parties: { merchant: merchant.name, customerName: customer.name } };
}
