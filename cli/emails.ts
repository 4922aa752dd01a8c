// `kasi emails <accountId> [--mode test|live]`: the emails kept for the account's customers, newest
// first (test mode unless stated), as DESIGN.md fixes them: [{id, to, kind, locale, subject,
// objectId, createdAt}]; `kasi email <emailId>`: one of them with its plain-text body (and, with
// --json, its HTML), to read what the customer was told.
import { MODES, type Mode } from '../domain/api-keys';
import type { EmailRow } from '../db/emails';
import { listEmails } from '../services/emails/list';
import { showEmail } from '../services/emails/show';
import { UsageError, type CommandInput, type CommandOutput } from './commands';
import { shown } from './text';

export const emailCommands: Record<string, (input: CommandInput) => Promise<CommandOutput>> = {
  async emails(input) {
    const [accountId, ...rest] = input.args;
    if (!accountId) throw new UsageError('missing <accountId>');
    if (rest.length) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
    const mode = input.options.mode ?? 'test';
    if (!MODES.includes(mode as Mode)) throw new UsageError(`--mode must be one of: ${MODES.join(', ')}`);
    const emails = (await listEmails(input.deps, accountId, mode as Mode)).map(listed);
    const text = emails.length ? emails.map((e) => `${e.createdAt}  ${e.kind.padEnd(21)}  ${e.locale}  ${shown(e.to)}  ${e.objectId}  ${shown(e.subject)}`).join('\n') : `no ${mode} emails`;
    return { json: emails, text };
  },
  async email(input) {
    const [emailId, ...rest] = input.args;
    if (!emailId) throw new UsageError('missing <emailId>');
    if (rest.length) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
    const email = await showEmail(input.deps, emailId);
    if (!email) throw new Error(`no email ${emailId} (kasi emails <accountId> lists them)`);
    return { json: { ...listed(email), text: email.text, html: email.html }, text: `To: ${shown(email.to)}\nSubject: ${shown(email.subject)}\n\n${email.text}` };
  },
};

/** An email as `kasi emails` lists it (DESIGN.md fixes these fields). */
function listed(e: EmailRow) {
  return { id: e.id, to: e.to, kind: e.kind, locale: e.locale, subject: e.subject, objectId: e.object_id, createdAt: e.created_at.toISOString() };
}
