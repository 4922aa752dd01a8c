// Merchant accounts: status, plan, saved cards, the dunning ladder's end and live activation (the public object is
// views/account.ts; the rules of its standing, domain/account-rules.ts).
import type { Knex } from 'knex';
import type { DefaultAnchor } from '../domain/billing-anchor';
import type { LadderEnd } from '../domain/dunning';
import type { ProrationUnit } from '../domain/proration';

export const ACCOUNT_STATUSES = ['not_activated', 'active', 'suspended'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

export interface AccountRecord {
  id: string;
  name: string;
  status: AccountStatus;
  plan: string;
  savedCards: boolean;
  /** What a subscription becomes when the dunning ladder ends unpaid (DESIGN.md "Dunning"). */
  dunningEnd: LadderEnd;
  /** Billing settings (DESIGN.md "Subscription changes"): proration by the second or by the day, and the default anchor. */
  proration: ProrationUnit;
  billingCycleAnchor: DefaultAnchor;
  liveActivatedAt: Date | null;
  createdAt: Date;
}

export interface AccountRow {
  id: string;
  name: string;
  status: AccountStatus;
  plan: string;
  saved_cards: boolean;
  dunning_end: LadderEnd;
  proration: ProrationUnit;
  billing_cycle_anchor: DefaultAnchor;
  live_activated_at: Date | null;
  created_at: Date;
}

export const ACCOUNT_COLUMNS = ['id', 'name', 'status', 'plan', 'saved_cards', 'dunning_end', 'proration', 'billing_cycle_anchor', 'live_activated_at', 'created_at'];

export function accountFromRow(row: AccountRow): AccountRecord {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    plan: row.plan,
    savedCards: row.saved_cards,
    dunningEnd: row.dunning_end,
    proration: row.proration,
    billingCycleAnchor: row.billing_cycle_anchor,
    liveActivatedAt: row.live_activated_at,
    createdAt: row.created_at,
  };
}

export async function findAccount(db: Knex | Knex.Transaction, id: string): Promise<AccountRecord | null> {
  const row = (await db('accounts').select(ACCOUNT_COLUMNS).where({ id }).first()) as AccountRow | undefined;
  return row ? accountFromRow(row) : null;
}

export interface AccountChanges {
  status?: 'active' | 'suspended';
  plan?: string;
  savedCards?: boolean;
  dunningEnd?: LadderEnd;
  proration?: ProrationUnit;
  billingCycleAnchor?: DefaultAnchor;
}

/**
 * Applies operator changes. Making an account `active` is its live activation: the first time
 * sets `liveActivatedAt`, which later suspensions and reactivations keep.
 */
export async function updateAccount(db: Knex | Knex.Transaction, id: string, changes: AccountChanges, now: Date): Promise<AccountRecord | null> {
  const patch: Record<string, unknown> = { updated_at: now };
  if (changes.status !== undefined) patch.status = changes.status;
  if (changes.status === 'active') patch.live_activated_at = db.raw('coalesce(live_activated_at, ?)', [now]);
  if (changes.plan !== undefined) patch.plan = changes.plan;
  if (changes.savedCards !== undefined) patch.saved_cards = changes.savedCards;
  if (changes.dunningEnd !== undefined) patch.dunning_end = changes.dunningEnd;
  if (changes.proration !== undefined) patch.proration = changes.proration;
  if (changes.billingCycleAnchor !== undefined) patch.billing_cycle_anchor = changes.billingCycleAnchor;
  const [row] = (await db('accounts').where({ id }).update(patch).returning(ACCOUNT_COLUMNS)) as AccountRow[];
  return row ? accountFromRow(row) : null;
}
