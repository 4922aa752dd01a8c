// The email sender: with SMTP_URL set, sends the kept emails (services/emails/deliver.ts) every
// second, oldest first; without it, emails are only kept. An email kept while the service was
// down, or whose attempt failed, goes on a later pass.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Clock } from '../domain/clock';
import { deliverDueEmails } from '../services/emails/deliver';

export const EMAIL_SWEEP_MS = 1000;

export interface EmailSender {
  stop(): Promise<void>;
}

export function startEmailSender(deps: { db: Knex; config: Config; clock: Clock; log: Logger }): EmailSender {
  if (deps.config.smtpUrl === undefined) return { stop: () => Promise.resolve() };
  let pass: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const timer = setInterval(() => {
    // One pass at a time: a slow SMTP server never has two passes claim side by side.
    pass = pass.then(() => (stopped ? 0 : deliverDueEmails(deps).catch((err: unknown) => deps.log.error({ err }, 'email sender pass failed'))));
  }, EMAIL_SWEEP_MS);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await pass;
    },
  };
}
