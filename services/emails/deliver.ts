// Send kept emails over SMTP (SMTP_URL, through nodemailer), each once: an attempt claims its
// email first (db/emails.ts claimEmail), so two senders never send one email twice; a failed
// attempt is tried again after 2, 4, 8 … seconds, up to an hour apart, until it goes.
import nodemailer, { type Transporter } from 'nodemailer';
import { claimEmail, emailsToSend, markEmailFailed, markEmailSent } from '../../db/emails';
import { isEmailAddress } from '../../domain/email-address';
import type { ServiceDeps } from '../context';

const transports = new Map<string, Transporter>();

function transportFor(smtpUrl: string): Transporter {
  let transport = transports.get(smtpUrl);
  if (transport === undefined) {
    transport = nodemailer.createTransport(smtpUrl);
    transports.set(smtpUrl, transport);
  }
  return transport;
}

/** One attempt at the email, if it is due one: 'sent', 'failed', or 'skipped' (sent, or not due). */
export async function deliverEmail(deps: Pick<ServiceDeps, 'db' | 'clock' | 'config' | 'log'>, id: string): Promise<'sent' | 'failed' | 'skipped'> {
  const smtpUrl = deps.config.smtpUrl;
  if (smtpUrl === undefined) return 'skipped';
  const email = await claimEmail(deps.db, id, deps.clock.now());
  if (email === undefined) return 'skipped';
  // An address kept before addresses were checked (`x<evil@evil.example>`) is never handed to
  // the mailer, which would send to the address inside it.
  if (!isEmailAddress(email.to)) {
    await markEmailFailed(deps.db, id, 'Not sent: the recipient is not one bare email address.');
    deps.log.warn({ emailId: id, kind: email.kind, accountId: email.account_id, mode: email.mode }, 'email not sent: its recipient is not one bare email address');
    return 'failed';
  }
  try {
    await transportFor(smtpUrl).sendMail({ from: deps.config.emailFrom, to: email.to, subject: email.subject, text: email.text, html: email.html, headers: { 'Content-Language': email.locale } });
  } catch (err) {
    await markEmailFailed(deps.db, id, err instanceof Error ? err.message : String(err));
    deps.log.warn({ err, emailId: id, kind: email.kind, attempts: email.attempts }, 'email not sent: tried again later');
    return 'failed';
  }
  await markEmailSent(deps.db, id, deps.clock.now());
  deps.log.info({ emailId: id, kind: email.kind, accountId: email.account_id, mode: email.mode }, 'email sent');
  return 'sent';
}

/** One pass over the emails due an attempt, oldest first, up to `limit`; how many went. */
export async function deliverDueEmails(deps: Pick<ServiceDeps, 'db' | 'clock' | 'config' | 'log'>, limit = 50): Promise<number> {
  if (deps.config.smtpUrl === undefined) return 0;
  let sent = 0;
  for (const id of await emailsToSend(deps.db, deps.clock.now(), limit)) if ((await deliverEmail(deps, id)) === 'sent') sent++;
  return sent;
}
