// One kept email with its body (`kasi email`), to read what a customer was told.
import { emailById, type EmailRow } from '../../db/emails';
import type { ServiceDeps } from '../context';

export function showEmail(deps: Pick<ServiceDeps, 'db'>, id: string): Promise<EmailRow | undefined> {
  return emailById(deps.db, id);
}
