// Keeping a card over HTTP, as a customer does on the hosted pages (no browser): a checkout that
// offers to keep the card, paid with the consent ticked (or not), and the charges made with it.
import assert from 'node:assert/strict';
import pino from 'pino';
import type { MerchantKeys } from '../../db/merchants';
import { createProcessors } from '../../processor';
import type { ProcessorServiceDeps } from '../../services/context';
import { ik, type TestApi, type TestWorkflows } from '../support/api';
import { eventually } from '../support/eventually';
import { get, payAtProcessor } from '../checkouts/hosted-flow';
import { payerCheckout } from '../payment-links/link-flow';

export const DETAILS = { name: 'Nimal Perera', email: 'nimal@example.com', phone: '077 123 4567' };
export const CARD_NUMBER = '5123450000000008';

export interface Kept {
  checkout: any;
  /** The checkout's payment once settled (and its card kept, or not). */
  payment: any;
  /** The Saved card, when one was kept. */
  card: any;
}

/**
 * What paying and keeping a card needs of a service: its address, its database, requests, and a
 * way to let its workflows settle. A TestApi, or a service in a child process (remoteApi in
 * test/support/remote-api.ts, whose workflows run in real time: payAndKeep waits for them).
 */
export type HostedApi = Pick<TestApi, 'url' | 'knex' | 'request'> & { workflows: Pick<TestWorkflows, 'settle'> };

/**
 * Pays a checkout offering to keep the card, consent ticked unless `consent` is false. The
 * merchant's checkout names the customer (`customer`) unless `typed`: then the payer types their
 * details on the page. `linkUrl`: the payer's own checkout from that payment link instead.
 */
export async function payAndKeep(
  api: HostedApi,
  keys: MerchantKeys,
  options: { expiry?: string; email?: string; consent?: boolean; amountCents?: number; locale?: 'en' | 'si' | 'ta'; typed?: boolean; linkUrl?: string; number?: string } = {},
): Promise<Kept> {
  const details = { ...DETAILS, email: options.email ?? DETAILS.email };
  const checkout = options.linkUrl !== undefined
    ? (await api.request(`/v1/checkouts/${new URL(await payerCheckout(api as TestApi, options.linkUrl)).pathname.split('/').pop()}`, { key: keys.sk_test })).body
    : (
      await api.request('/v1/checkouts', {
        key: keys.sk_test,
        idempotencyKey: ik('keep'),
        body: {
          amountCents: options.amountCents ?? 350000,
          description: 'Tea',
          saveCard: true,
          ...(options.locale ? { locale: options.locale } : {}),
          ...(options.typed ? {} : { customer: details }),
        },
      })
    ).body;
  const form = { ...details, ...(options.consent === false ? {} : { saveCard: 'yes' }) };
  // payAtProcessor asks of the service only its url and workflows.settle.
  const back = await payAtProcessor(api as TestApi, checkout.url, { number: options.number ?? CARD_NUMBER, expiry: options.expiry ?? '01/39', cvv: '100' }, form);
  await get(back);
  await api.workflows.settle();
  // Settled at once on the test service; in real time, the payment decided and its card kept (or refused) a moment later.
  await eventually(
    () => api.knex('payments').where({ id: checkout.payment.id }).first('status', 'card_save'),
    (p: { status: string; card_save: string }) => p.status !== 'processing' && !(p.status === 'succeeded' && p.card_save === 'requested'),
    15_000,
  );
  const payment = (await api.request(`/v1/payments/${checkout.payment.id}`, { key: keys.sk_test })).body;
  assert.equal(payment.status, 'succeeded', JSON.stringify(payment));
  const row = await api.knex('saved_cards').where({ payment_id: payment.id }).first();
  const card = row ? (await api.request(`/v1/cards/${row.id}`, { key: keys.sk_test })).body : null;
  return { checkout, payment, card };
}

/** POST /v1/cards/{id}/charge. */
export function charge(api: TestApi, key: string, cardId: string, body: Record<string, unknown> = { amountCents: 150000, description: 'Tea, March' }, idempotencyKey = ik('charge')) {
  return api.request(`/v1/cards/${cardId}/charge`, { key, idempotencyKey, body });
}

/** The events of a type about one object (`data.id`), oldest first. */
export async function eventsAbout(api: TestApi, type: string, id: string): Promise<any[]> {
  return api.knex('events').where({ type }).whereRaw("data->>'id' = ?", [id]).orderBy('id');
}

/** What the service's activities give a service, over the test service's database and clock. */
export function serviceDeps(api: TestApi): ProcessorServiceDeps {
  const clock = api.service.clock;
  return {
    db: api.knex,
    clock,
    config: api.config,
    log: pino({ level: 'silent' }),
    workflows: api.service.orchestration.port,
    processors: createProcessors({ db: api.knex, clock, publicBaseUrl: () => api.url, secretKey: api.config.secretKey }),
  };
}
