// Customer emails: kept here whether or not SMTP sends them (views/emails renders them), listed by
// `kasi emails`, and sent by the email sender (workers/email-sender.ts) when SMTP_URL is set.
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';
import type { Locale } from '../domain/locale';
import type { EmailKind } from '../domain/emails';
import { sql } from './sql';

type Db = Knex | Knex.Transaction;

export interface EmailRow {
  id: string;
  account_id: string;
  mode: Mode;
  to: string;
  kind: EmailKind;
  locale: Locale;
  subject: string;
  text: string;
  html: string;
  object_id: string;
  created_at: Date;
  claimed_at: Date | null;
  sent_at: Date | null;
  attempts: number;
  last_error: string | null;
}

export type NewEmailRow = Pick<EmailRow, 'id' | 'account_id' | 'mode' | 'to' | 'kind' | 'locale' | 'subject' | 'text' | 'html' | 'object_id' | 'created_at'>;

const EMAIL_COLUMNS = ['id', 'account_id', 'mode', 'to', 'kind', 'locale', 'subject', 'text', 'html', 'object_id', 'created_at'] as const;

/**
 * The email's insert, its $n from `first` on (EMAIL_COLUMNS in order), one row for each row of
 * `source`: a receipt or card_saved already kept for its object keeps no second.
 */
export function insertEmailSql(first: number, source: string): string {
  return `insert into emails (${EMAIL_COLUMNS.map((c) => `"${c}"`).join(', ')})
    select ${EMAIL_COLUMNS.map((c, i) => `$${first + i}${c === 'created_at' ? '::timestamptz' : '::text'}`).join(', ')} ${source}
    on conflict (kind, object_id) where kind in ('receipt', 'card_saved') do nothing`;
}

export const emailValues = (row: NewEmailRow): unknown[] => EMAIL_COLUMNS.map((c) => row[c]);

const INSERT_EMAIL_SQL = insertEmailSql(1, '');

export async function insertEmail(db: Db, row: NewEmailRow): Promise<void> {
  await sql(db, INSERT_EMAIL_SQL, emailValues(row));
}

/** An account's emails of one mode, newest first. */
export async function newestEmails(db: Db, scope: { accountId: string; mode: Mode }, limit: number): Promise<EmailRow[]> {
  return (await db('emails').where({ account_id: scope.accountId, mode: scope.mode }).orderBy('id', 'desc').limit(limit)) as EmailRow[];
}

/** One email, by id; undefined when there is none. */
export async function emailById(db: Db, id: string): Promise<EmailRow | undefined> {
  return (await db('emails').where({ id }).first()) as EmailRow | undefined;
}

/**
 * Longest wait between two attempts to send one email: a failed attempt waits 2^attempts seconds
 * before the next, up to this; a sender that stopped mid-send has its claim taken over as late.
 */
const MAX_RETRY_SECONDS = 3600;
const claimable = `sent_at is null and (claimed_at is null or claimed_at < $2::timestamptz - least(power(2, attempts), ${MAX_RETRY_SECONDS}) * interval '1 second')`;

/** Unsent emails due an attempt, oldest first. */
export async function emailsToSend(db: Db, now: Date, limit: number): Promise<string[]> {
  const rows = await sql<{ id: string }>(db, `select id from emails where ${claimable} order by id limit $1`, [limit, now]);
  return rows.map((r) => r.id);
}

/** Takes the email for one attempt (no other sender makes it meanwhile); undefined if not due. */
export async function claimEmail(db: Db, id: string, now: Date): Promise<EmailRow | undefined> {
  const [row] = await sql<EmailRow>(db, `update emails set claimed_at = $2, attempts = attempts + 1 where id = $1 and ${claimable} returning *`, [id, now]);
  return row;
}

export async function markEmailSent(db: Db, id: string, now: Date): Promise<void> {
  await db('emails').where({ id }).update({ sent_at: now, last_error: null });
}

/** The attempt failed: `claimed_at` stays as the attempt's time, so the next waits its turn. */
export async function markEmailFailed(db: Db, id: string, error: string): Promise<void> {
  await db('emails').where({ id }).update({ last_error: error.slice(0, 1000) });
}
