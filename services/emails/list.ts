// The emails kept for an account's customers in one mode, newest first (`kasi emails`).
import { newestEmails, type EmailRow } from '../../db/emails';
import type { Mode } from '../../domain/api-keys';
import type { ServiceDeps } from '../context';

/** How many `kasi emails` prints: the newest. */
export const EMAILS_LISTED = 200;

export function listEmails(deps: Pick<ServiceDeps, 'db'>, accountId: string, mode: Mode): Promise<EmailRow[]> {
  return newestEmails(deps.db, { accountId, mode }, EMAILS_LISTED);
}
