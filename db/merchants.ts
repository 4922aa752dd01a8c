// A new merchant: the account and its first keys, made together or not at all.
import type { Knex } from 'knex';
import { newId } from '../crypto/ids';
import { KEY_KINDS, KIND_PREFIX, MODES, type Mode } from '../domain/api-keys';
import { DEFAULT_PLAN } from '../domain/plans';
import { ACCOUNT_COLUMNS, accountFromRow, type AccountRecord, type AccountRow } from './accounts';
import { createApiKey } from './api-keys';

export type MerchantKeys = Record<`${'sk' | 'pk' | 'ak'}_${Mode}`, string>;

/** A new merchant: the account (not yet activated for live) and one key of each kind and mode. */
export async function createMerchant(
  db: Knex | Knex.Transaction,
  input: { name: string; plan?: string; now: Date },
): Promise<{ account: AccountRecord; keys: MerchantKeys }> {
  return db.transaction(async (trx) => {
    const [row] = (await trx('accounts')
      .insert({
        id: newId('account', input.now.getTime()),
        name: input.name,
        status: 'not_activated',
        plan: input.plan ?? DEFAULT_PLAN,
        saved_cards: false,
        live_activated_at: null,
        created_at: input.now,
        updated_at: input.now,
      })
      .returning(ACCOUNT_COLUMNS)) as AccountRow[];
    const account = accountFromRow(row as AccountRow);
    const keys = {} as MerchantKeys;
    for (const mode of MODES) {
      for (const kind of KEY_KINDS) {
        const created = await createApiKey(trx, { accountId: account.id, kind, mode, now: input.now });
        keys[`${KIND_PREFIX[kind]}_${mode}` as keyof MerchantKeys] = created.key;
      }
    }
    return { account, keys };
  });
}

