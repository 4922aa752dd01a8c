// The sandbox processor (test mode): a card processor's hosted payment page, its 3-D Secure page
// and its own table. The card number and CVV are checked here and dropped: only the scheme, last
// four digits, expiry and a token are kept and reported to the service.
import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Knex } from 'knex';
import type { Clock } from '../../domain/clock';
import { cardScheme, luhnValid, SCHEME_NAMES, type CardScheme } from '../../domain/card';
import { LOCALES, type Locale } from '../../domain/locale';
import { centsFromDb } from '../../domain/money';
import { escapeHtml } from '../../web/html';
import { readForm } from '../../web/form';
import type { CardProcessor, DeclineCode, ProcessorOutcome, ReportedCard } from '../port';
import { DECLINE_MESSAGES, expectedCvv, outcomeForExpiry, TEST_CARDS } from './cards';
import { SANDBOX_MESSAGES } from './messages';
import { cardPage, page, threeDsPage } from './pages';
import { createSandboxRefunds } from './refunds';
import { createSandboxSavedCards } from './saved-cards';

interface SessionRow {
  id: string;
  reference: string;
  amount_cents: string | number;
  merchant_name: string;
  return_url: string;
  status: 'awaiting_card' | 'awaiting_3ds' | 'approved' | 'declined' | 'canceled';
  decline_code: DeclineCode | null;
  scheme: CardScheme | null;
  last4: string | null;
  expiry_month: number | null;
  expiry_year: number | null;
  token: string | null;
}

function randomId(prefix: string): string {
  const alphabet = '0123456789abcdefghijklmnopqrstuvwxyz';
  return `${prefix}_${[...randomBytes(24)].map((b) => alphabet[b % 36]).join('')}`;
}

function reportedCard(row: SessionRow): ReportedCard | null {
  if (row.scheme === null) return null;
  return { scheme: row.scheme, last4: row.last4 as string, expiryMonth: row.expiry_month as number, expiryYear: row.expiry_year as number, token: row.token as string };
}

function outcomeOf(row: SessionRow | undefined): ProcessorOutcome {
  if (row === undefined) return { status: 'pending' };
  switch (row.status) {
    case 'approved':
      return { status: 'approved', card: reportedCard(row) as ReportedCard };
    case 'declined': {
      const code = row.decline_code as DeclineCode;
      return { status: 'declined', code, message: DECLINE_MESSAGES[code], card: reportedCard(row) };
    }
    case 'canceled':
      return { status: 'canceled' };
    default:
      return { status: 'pending' };
  }
}

export const SANDBOX_PATH = '/sandbox/sessions';

export function createSandboxProcessor(deps: { db: Knex; clock: Clock; publicBaseUrl: () => string; sandboxSettlementMs?: number }): CardProcessor {
  const { db, clock } = deps;
  return {
    ...createSandboxSavedCards(deps),
    ...createSandboxRefunds(deps),
    async openSession(request) {
      const now = clock.now();
      // One session per reference: a repeated call (a retry, a second click) finds the first.
      await db('sandbox_sessions')
        .insert({
          id: randomId('sbx'),
          reference: request.reference,
          amount_cents: request.amountCents,
          merchant_name: request.merchantName,
          return_url: request.returnUrl,
          status: 'awaiting_card',
          created_at: now,
          updated_at: now,
        })
        .onConflict('reference')
        .ignore();
      const row = (await db('sandbox_sessions').where({ reference: request.reference }).first()) as SessionRow;
      return { redirectUrl: `${deps.publicBaseUrl()}${SANDBOX_PATH}/${row.id}?lang=${request.locale}` };
    },
    async outcome(reference) {
      return outcomeOf((await db('sandbox_sessions').where({ reference }).first()) as SessionRow | undefined);
    },
    async cancel(reference) {
      await db('sandbox_sessions')
        .where({ reference })
        .whereIn('status', ['awaiting_card', 'awaiting_3ds'])
        .update({ status: 'canceled', updated_at: clock.now() });
      const row = (await db('sandbox_sessions').where({ reference }).first()) as SessionRow | undefined;
      // A session never opened (Pay stopped before) has nothing left to decide: closed too.
      return row === undefined ? { status: 'canceled' } : outcomeOf(row);
    },
    async voidApproval(reference) {
      await db('sandbox_sessions')
        .where({ reference })
        .whereIn('status', ['awaiting_card', 'awaiting_3ds', 'approved'])
        .update({ status: 'canceled', updated_at: clock.now() });
    },
  };
}

function localeOf(ctx: Context): Locale {
  const lang = ctx.query.lang;
  return typeof lang === 'string' && (LOCALES as readonly string[]).includes(lang) ? (lang as Locale) : 'en';
}

export function sandboxRouter(deps: { db: Knex; clock: Clock }): Router {
  const { db, clock } = deps;
  const router = new Router({ strict: true, sensitive: true });
  const load = async (ctx: Context): Promise<SessionRow | undefined> => {
    const id = String(ctx.params.id);
    return /^sbx_[0-9a-z]{24}$/.test(id) ? ((await db('sandbox_sessions').where({ id }).first()) as SessionRow | undefined) : undefined;
  };
  const notFound = (ctx: Context) => {
    ctx.status = 404;
    ctx.type = 'html';
    ctx.body = page('en', 'Not found', '<h1>Not found</h1>');
  };
  const finished = (ctx: Context, row: SessionRow, locale: Locale) => {
    if (row.status === 'canceled') {
      const t = SANDBOX_MESSAGES[locale];
      ctx.status = 409;
      ctx.type = 'html';
      ctx.body = page(locale, t.canceled, `<div class="card"><h1>${escapeHtml(t.canceled)}</h1><p><a href="${escapeHtml(row.return_url)}">${escapeHtml(t.back)}</a></p></div>`);
    } else {
      ctx.redirect(row.return_url);
      ctx.status = 303;
    }
  };
  const cardForm = (row: SessionRow, locale: Locale, error?: string) =>
    cardPage({ locale, merchantName: row.merchant_name, amountCents: centsFromDb(row.amount_cents), action: `${SANDBOX_PATH}/${row.id}/card?lang=${locale}`, error });
  const threeDs = (row: SessionRow, locale: Locale) =>
    threeDsPage({
      locale,
      merchantName: row.merchant_name,
      amountCents: centsFromDb(row.amount_cents),
      card: `${SCHEME_NAMES[row.scheme as CardScheme]} •••• ${row.last4}`,
      action: `${SANDBOX_PATH}/${row.id}/3ds?lang=${locale}`,
    });

  router.get(`${SANDBOX_PATH}/:id`, async (ctx) => {
    const row = await load(ctx);
    if (!row) return notFound(ctx);
    const locale = localeOf(ctx);
    if (row.status === 'awaiting_3ds') return ctx.redirect(`${SANDBOX_PATH}/${row.id}/3ds?lang=${locale}`);
    if (row.status !== 'awaiting_card') return finished(ctx, row, locale);
    ctx.type = 'html';
    ctx.body = cardForm(row, locale);
  });

  router.post(`${SANDBOX_PATH}/:id/card`, async (ctx) => {
    const row = await load(ctx);
    if (!row) return notFound(ctx);
    const locale = localeOf(ctx);
    if (row.status !== 'awaiting_card') return finished(ctx, row, locale);
    const form = await readForm(ctx);
    const t = SANDBOX_MESSAGES[locale];
    const number = (form.number ?? '').replace(/[\s-]/g, '');
    const expiry = /^\s*(0[1-9]|1[0-2])\s*\/\s*(\d{2})\s*$/.exec(form.expiry ?? '');
    const scheme = luhnValid(number) ? cardScheme(number) : null;
    let error: string | undefined;
    if (number.length < 13 || number.length > 19 || scheme === null) error = t.invalidNumber;
    else if (!TEST_CARDS.some((c) => c.number === number)) error = t.notTestCard;
    else if (!expiry) error = t.invalidExpiry;
    else if ((form.cvv ?? '').trim() !== expectedCvv(scheme)) error = t.invalidCvv;
    if (error !== undefined || scheme === null || !expiry) {
      // The form comes back empty: the card number is never written into a page.
      ctx.status = 400;
      ctx.type = 'html';
      ctx.body = cardForm(row, locale, error);
      return;
    }
    await db('sandbox_sessions')
      .where({ id: row.id, status: 'awaiting_card' })
      .update({
        status: 'awaiting_3ds',
        scheme,
        last4: number.slice(-4),
        expiry_month: Number(expiry[1]),
        expiry_year: 2000 + Number(expiry[2]),
        token: randomId('tok'),
        updated_at: clock.now(),
      });
    ctx.status = 303;
    ctx.redirect(`${SANDBOX_PATH}/${row.id}/3ds?lang=${locale}`);
  });

  router.get(`${SANDBOX_PATH}/:id/3ds`, async (ctx) => {
    const row = await load(ctx);
    if (!row) return notFound(ctx);
    const locale = localeOf(ctx);
    if (row.status === 'awaiting_card') return ctx.redirect(`${SANDBOX_PATH}/${row.id}?lang=${locale}`);
    if (row.status !== 'awaiting_3ds') return finished(ctx, row, locale);
    ctx.type = 'html';
    ctx.body = threeDs(row, locale);
  });

  router.post(`${SANDBOX_PATH}/:id/3ds`, async (ctx) => {
    const row = await load(ctx);
    if (!row) return notFound(ctx);
    const locale = localeOf(ctx);
    if (row.status !== 'awaiting_3ds') return finished(ctx, row, locale);
    const form = await readForm(ctx);
    const decided = form.result === 'pass' ? outcomeForExpiry(row.expiry_month as number, row.expiry_year as number, clock.now()) : 'authentication_failed';
    const [updated] = (await db('sandbox_sessions')
      .where({ id: row.id, status: 'awaiting_3ds' })
      .update(decided === 'approved'
        ? { status: 'approved', updated_at: clock.now() }
        : { status: 'declined', decline_code: decided, updated_at: clock.now() })
      .returning('*')) as SessionRow[];
    // Lost a race with a cancellation (the checkout expired meanwhile): show what was decided.
    finished(ctx, updated ?? ((await load(ctx)) as SessionRow), locale);
  });

  return router;
}
