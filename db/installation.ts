// The installation row (migration 007): every process that seals or opens stored secrets checks
// that its key is the installation's, and the server records the webhook loopback rule it runs
// with so the CLI applies the same one.
import { createHmac } from 'node:crypto';
import type { Knex } from 'knex';

/** Names a key without revealing it: an HMAC of a fixed label, 16 hex characters. */
export function secretKeyFingerprint(key: Buffer): string {
  return createHmac('sha256', key).update('kasi secret key fingerprint').digest('hex').slice(0, 16);
}

export class SecretKeyMismatchError extends Error {
  constructor(readonly expected: string, readonly actual: string) {
    super(
      `this process's secret key (fingerprint ${actual}) is not the one this database's secrets are sealed with (fingerprint ${expected}). ` +
        'Every server, worker and CLI on one database must use the same key: set KASI_SECRET_KEY to it (see docs/operators/backups-and-upgrades.md, "The secret key").',
    );
    this.name = 'SecretKeyMismatchError';
  }
}

/** Records the key's fingerprint on first use; afterwards refuses any other key. */
export async function checkSecretKey(db: Knex, key: Buffer, now: Date): Promise<void> {
  const fingerprint = secretKeyFingerprint(key);
  await db('installation').insert({ secret_key_fingerprint: fingerprint, created_at: now, updated_at: now }).onConflict('id').ignore();
  const row = (await db('installation').first('secret_key_fingerprint')) as { secret_key_fingerprint: string };
  if (row.secret_key_fingerprint !== fingerprint) throw new SecretKeyMismatchError(row.secret_key_fingerprint, fingerprint);
}

/** The server's loopback rule, recorded at its boot (after checkSecretKey made the row). */
export async function recordWebhookLoopbackRule(db: Knex, allowLoopback: boolean, now: Date): Promise<void> {
  await db('installation').update({ webhook_allow_loopback: allowLoopback, updated_at: now });
}

/** The loopback rule the last server booted with, or undefined before any server ran. */
export async function serverWebhookLoopbackRule(db: Knex): Promise<boolean | undefined> {
  const row = (await db('installation').first('webhook_allow_loopback')) as { webhook_allow_loopback: boolean | null } | undefined;
  return row?.webhook_allow_loopback ?? undefined;
}
