// The sandbox's saved cards: reusable tokens for the cards of approved sessions (table
// sandbox_tokens: scheme, last4, expiry and the token, never the number), and the charges made
// with them without the customer present (table sandbox_charges). A charge is decided when it is
// made, by the card's expiry (merchantInitiatedOutcome in cards.ts), and reported pending until
// the bank's answer is due, SETTLE_MS later (at once for a charge on a test clock); one the sandbox can refuse without the bank (an
// expired card, a deleted token) is declined at once.
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { Clock } from '../../domain/clock';
import type { CardScheme } from '../../domain/card';
import { sql } from '../../db/sql';
import { batched } from '../../db/batched';
import type { CardProcessor, DeclineCode, ProcessorOutcome, ReportedCard, SavedCardCharge } from '../port';
import { DECLINE_MESSAGES, keepsCard, merchantInitiatedOutcome } from './cards';

/** How long after a charge the sandbox's bank answers. */
export const SANDBOX_CHARGE_SETTLE_MS = 5_000;

interface TokenCard {
  token: string;
  scheme: CardScheme;
  last4: string;
  expiry_month: number;
  expiry_year: number;
}

interface ChargeRow extends Partial<Omit<TokenCard, 'token'>> {
  reference: string;
  token: string;
  status: 'approved' | 'declined' | 'canceled';
  decline_code: DeclineCode | null;
  settles_at: Date;
}

/** A reference's charge (null columns when there is none) and the card of a token (null when the sandbox has no such token). */
type FoundCharge = Partial<ChargeRow> & Partial<TokenCard> & { token: string; deleted_at: Date | null };

// The charging path's two statements, as named prepared statements (db/sql.ts), for any number
// of charges: they are made with one of each and asked about with the first.
const FIND_CHARGES_SQL = `select c.reference, c.status, c.decline_code, c.settles_at, k.token, t.scheme, t.last4, t.expiry_month, t.expiry_year, t.deleted_at
  from unnest($1::text[], $2::text[]) with ordinality k(reference, token, n)
  left join sandbox_tokens t on t.token = k.token
  left join sandbox_charges c on c.reference = k.reference
  order by k.n`;
// Written in the order of their references, so that two batches making some of the same never
// wait on each other in a cycle.
const INSERT_CHARGES_SQL = `insert into sandbox_charges (reference, token, amount_cents, merchant_name, status, decline_code, settles_at, created_at)
  select *, $8::timestamptz from unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::timestamptz[]) order by 1
  on conflict (reference) do nothing
  returning reference, status, decline_code, settles_at`;

function randomToken(): string {
  const alphabet = '0123456789abcdefghijklmnopqrstuvwxyz';
  return `tok_${[...randomBytes(24)].map((b) => alphabet[b % 36]).join('')}`;
}

function reportedCard(row: TokenCard): ReportedCard {
  return { scheme: row.scheme, last4: row.last4, expiryMonth: row.expiry_month, expiryYear: row.expiry_year, token: row.token };
}

function chargeOutcome(row: ChargeRow, now: Date): ProcessorOutcome {
  if (row.status === 'canceled') return { status: 'canceled' };
  if (row.settles_at.getTime() > now.getTime()) return { status: 'pending' };
  const card = row.scheme === undefined || row.scheme === null ? null : reportedCard(row as ChargeRow & TokenCard);
  if (row.status === 'approved') return { status: 'approved', card: card as ReportedCard };
  const code = row.decline_code as DeclineCode;
  return { status: 'declined', code, message: DECLINE_MESSAGES[code], card };
}

export function createSandboxSavedCards(deps: { db: Knex; clock: Clock }): Pick<CardProcessor, 'saveCard' | 'chargeSaved' | 'voidCharge' | 'deleteCard'> {
  const { db, clock } = deps;
  /** The charges of the references, if any, each with the card of its token (if the sandbox has it): one read. */
  const findCharges = async (charges: readonly SavedCardCharge[]) =>
    sql<FoundCharge>(db, FIND_CHARGES_SQL, [charges.map((c) => c.reference), charges.map((c) => c.token)]);
  const chargeNow = async (charges: readonly SavedCardCharge[]): Promise<ProcessorOutcome[]> => {
    const now = clock.now();
    const found = await findCharges(charges);
    const toMake = charges.flatMap((charge, i) => (found[i]!.reference ? [] : [{ charge, card: found[i]! }]));
    const decisions = toMake.map(({ charge, card }) => {
      const usable = card.scheme !== null && card.scheme !== undefined && card.deleted_at === null;
      const decided = usable ? merchantInitiatedOutcome(card.expiry_month!, card.expiry_year!, now) : { outcome: 'card_declined' as const, atOnce: true };
      return { ...decided, settlesAt: decided.atOnce || charge.onTestClock === true ? now : new Date(now.getTime() + SANDBOX_CHARGE_SETTLE_MS) };
    });
    const made = toMake.length === 0 ? [] : await sql<ChargeRow>(db, INSERT_CHARGES_SQL, [
      toMake.map(({ charge }) => charge.reference),
      toMake.map(({ charge }) => charge.token),
      toMake.map(({ charge }) => charge.amountCents),
      toMake.map(({ charge }) => charge.merchantName),
      decisions.map((d) => (d.outcome === 'approved' ? 'approved' : 'declined')),
      decisions.map((d) => (d.outcome === 'approved' ? null : d.outcome)),
      decisions.map((d) => d.settlesAt),
      now,
    ]);
    const madeNow = new Map(made.map((row) => [row.reference, row]));
    // One made by a call at the same moment (not by this one) is read again, to report that one.
    const madeBefore = toMake.filter(({ charge }) => !madeNow.has(charge.reference)).map(({ charge }) => charge);
    const foundAgain = new Map(madeBefore.length === 0 ? [] : (await findCharges(madeBefore)).map((row) => [row.reference!, row]));
    return charges.map((charge, i) => {
      const row = found[i]!.reference ? found[i]! : { ...found[i]!, ...(madeNow.get(charge.reference) ?? foundAgain.get(charge.reference)) };
      return chargeOutcome(row as ChargeRow, now);
    });
  };
  // Charges asked for at one moment (concurrent API requests, an instant's invoices) are made
  // together, two batches at most in flight: under load the two statements serve many charges.
  const chargeOne = batched((charges: SavedCardCharge[]) => chargeNow(charges), 50, 2);
  return {
    async saveCard(reference) {
      const session = (await db('sandbox_sessions').where({ reference }).first('status', 'scheme', 'last4', 'expiry_month', 'expiry_year')) as
        | (Omit<TokenCard, 'token'> & { status: string })
        | undefined;
      if (session?.status !== 'approved') return { status: 'refused', message: 'Only the card of an approved payment can be kept.' };
      if (!keepsCard(session.expiry_month, session.expiry_year)) return { status: 'refused', message: 'The card\'s bank does not allow it to be kept for later payments.' };
      // One token per approved session: a retried save finds the first.
      const { scheme, last4, expiry_month, expiry_year } = session;
      await db('sandbox_tokens')
        .insert({ token: randomToken(), reference, scheme, last4, expiry_month, expiry_year, created_at: clock.now() })
        .onConflict('reference')
        .ignore();
      return { status: 'saved', card: reportedCard((await db('sandbox_tokens').where({ reference }).first()) as TokenCard) };
    },
    chargeSaved: (charges) => Promise.all(charges.map(chargeOne)),
    async voidCharge(reference) {
      await db('sandbox_charges').where({ reference, status: 'approved' }).update({ status: 'canceled' });
    },
    async deleteCard(token) {
      await db('sandbox_tokens').where({ token }).whereNull('deleted_at').update({ deleted_at: clock.now() });
    },
  };
}
