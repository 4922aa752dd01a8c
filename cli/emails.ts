// `kasi emails <accountId> [--mode test|live]`: the emails kept for the account's customers, newest
// first (test mode unless stated), as DESIGN.md fixes them: [{id, to, kind, locale, subject,
// objectId, createdAt}].
import { MODES, type Mode } from '../domain/api-keys';
import { listEmails } from '../services/emails/list';
import { UsageError, type CommandInput, type CommandOutput } from './commands';
import { shown } from './text';

export const emailCommands: Record<string, (input: CommandInput) => Promise<CommandOutput>> = {
  async emails(input) {
    const [accountId, ...rest] = input.args;
    if (!accountId) throw new UsageError('missing <accountId>');
    if (rest.length) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
    const mode = input.options.mode ?? 'test';
    if (!MODES.includes(mode as Mode)) throw new UsageError(`--mode must be one of: ${MODES.join(', ')}`);
    const emails = (await listEmails(input.deps, accountId, mode as Mode)).map((e) => ({
      id: e.id,
      to: e.to,
      kind: e.kind,
      locale: e.locale,
      subject: e.subject,
      objectId: e.object_id,
      createdAt: e.created_at.toISOString(),
    }));
    const text = emails.length ? emails.map((e) => `${e.createdAt}  ${e.kind.padEnd(21)}  ${e.locale}  ${shown(e.to)}  ${e.objectId}  ${shown(e.subject)}`).join('\n') : `no ${mode} emails`;
    return { json: emails, text };
  },
};
