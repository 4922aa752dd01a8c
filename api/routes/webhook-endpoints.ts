// Webhook endpoints for a dashboard (the CLI does the same through the same db module):
// create, list, read, update, rotate the secret, send a test.ping, list deliveries with their
// attempts, and re-send a delivery by hand. See docs/webhooks.md.
import type { Knex } from 'knex';
import type { Config } from '../../config';
import { ApiError } from '../../domain/errors';
import { idPattern } from '../../domain/ids';
import { destinationProblem } from '../../net/webhook-http';
import {
  createWebhookEndpoint,
  rotateWebhookSecret,
  updateWebhookEndpoint,
  webhookEndpointView,
  webhookEndpointsQuery,
  type WebhookEndpointRow,
} from '../../db/webhook-endpoints';
import { createPingDelivery, deliveriesWithAttempts, type WebhookDeliveryRow } from '../../db/webhook-deliveries';
import type { OrchestrationPort } from '../../orchestration';
import { webhookResendStart } from '../../orchestration/starts';
import { findOwned } from '../platform/ownership';
import { findIn, getRoute, listRoute } from '../platform/resource-routes';
import { defineRoute, type Caller } from '../platform/route';
import {
  deliveryListQuerySchema,
  webhookDeliverySchema,
  webhookEndpointCreateSchema,
  webhookEndpointListQuerySchema,
  webhookEndpointSchema,
  webhookEndpointUpdateSchema,
  webhookEndpointWithSecretSchema,
} from '../schemas/webhook';

const endpointParams = { id: idPattern('webhookEndpoint') };

/** A new endpoint's id feeds every call on the endpoint. */
const endpointLinks = Object.fromEntries(
  ['getWebhookEndpoint', 'updateWebhookEndpoint', 'rotateWebhookSecret', 'pingWebhookEndpoint', 'listWebhookDeliveries'].map((operationId) => [
    operationId,
    { operationId, parameters: { id: '$response.body#/id' } },
  ]),
);

async function checkUrl(url: string, caller: Caller, config: Config): Promise<void> {
  const problem = await destinationProblem(url, { mode: caller.mode, allowLoopback: config.webhookAllowLoopback });
  if (problem) throw new ApiError('VALIDATION_FAILED', 'The endpoint URL cannot receive webhooks.', { fields: [{ path: 'url', message: problem }] });
}

/** The endpoint named in the path: the caller's own, in the key's mode. */
const endpointTable = { kind: 'webhookEndpoint', table: 'webhook_endpoints' } as const;
const endpoint = (db: Knex | Knex.Transaction, id: string, caller: Caller) => findIn<WebhookEndpointRow>(db, endpointTable, id, caller);

/** One attempt of a delivery in its own workflow run (a ping, or a re-send by hand). */
function sendOnce(workflows: OrchestrationPort, delivery: WebhookDeliveryRow) {
  return async () => {
    await workflows.start(webhookResendStart(delivery));
  };
}

export const webhookEndpointRoutes = [
  defineRoute<{ url: string; eventTypes?: string[] }, unknown>({
    method: 'POST',
    path: '/v1/webhook_endpoints',
    operationId: 'createWebhookEndpoint',
    summary: 'Add a webhook endpoint (the signing secret is shown once)',
    tag: 'Webhooks',
    auth: {},
    idempotent: true,
    body: webhookEndpointCreateSchema,
    responses: { 201: { description: 'The endpoint and its signing secret.', schema: webhookEndpointWithSecretSchema, links: endpointLinks } },
    async handler({ caller, body, db, clock, config }) {
      await checkUrl(body.url, caller, config);
      const created = await createWebhookEndpoint(db, {
        accountId: caller.account.id,
        mode: caller.mode,
        url: body.url,
        eventTypes: body.eventTypes ?? null,
        key: config.secretKey(),
        now: clock.now(),
      });
      return { status: 201, body: { ...webhookEndpointView(created.endpoint), secret: created.secret } };
    },
  }),
  listRoute<WebhookEndpointRow>({
    path: '/v1/webhook_endpoints',
    operationId: 'listWebhookEndpoints',
    summary: 'List webhook endpoints, newest first',
    tag: 'Webhooks',
    auth: {},
    kind: 'webhookEndpoint',
    query: webhookEndpointListQuerySchema,
    item: webhookEndpointSchema,
    answer: 'A page of endpoints.',
    rows: ({ db, scope }) => webhookEndpointsQuery(db, scope),
    view: webhookEndpointView,
  }),
  getRoute<WebhookEndpointRow>({
    path: '/v1/webhook_endpoints/{id}',
    operationId: 'getWebhookEndpoint',
    summary: 'Get a webhook endpoint',
    tag: 'Webhooks',
    auth: {},
    ...endpointTable,
    item: webhookEndpointSchema,
    answer: 'The endpoint.',
    view: webhookEndpointView,
  }),
  defineRoute<{ url?: string; eventTypes?: string[] | null; enabled?: boolean }, unknown, { id: string }>({
    method: 'POST',
    path: '/v1/webhook_endpoints/{id}',
    operationId: 'updateWebhookEndpoint',
    summary: 'Change a webhook endpoint: URL, event types, enabled',
    tag: 'Webhooks',
    auth: {},
    idempotent: true,
    params: endpointParams,
    body: webhookEndpointUpdateSchema,
    responses: { 200: { description: 'The endpoint.', schema: webhookEndpointSchema } },
    async handler({ caller, params, body, db, clock, config }) {
      await endpoint(db, params.id, caller);
      if (body.url !== undefined) await checkUrl(body.url, caller, config);
      return { status: 200, body: webhookEndpointView(await updateWebhookEndpoint(db, params.id, body, clock.now())) };
    },
  }),
  defineRoute<unknown, unknown, { id: string }>({
    method: 'POST',
    path: '/v1/webhook_endpoints/{id}/rotate_secret',
    operationId: 'rotateWebhookSecret',
    summary: 'Rotate the signing secret; the old one keeps signing alongside for 24 hours',
    tag: 'Webhooks',
    auth: {},
    idempotent: true,
    params: endpointParams,
    responses: { 200: { description: 'The endpoint and its new signing secret.', schema: webhookEndpointWithSecretSchema } },
    async handler({ caller, params, db, clock, config }) {
      const row = await endpoint(db, params.id, caller);
      const secret = await rotateWebhookSecret(db as Knex.Transaction, row.id, config.secretKey(), clock.now());
      return { status: 200, body: { ...webhookEndpointView(row), secret } };
    },
  }),
  defineRoute<unknown, unknown, { id: string }>({
    method: 'POST',
    path: '/v1/webhook_endpoints/{id}/ping',
    operationId: 'pingWebhookEndpoint',
    summary: 'Send a test.ping to this endpoint alone',
    tag: 'Webhooks',
    auth: {},
    idempotent: true,
    params: endpointParams,
    responses: {
      202: {
        description: 'The ping delivery; its attempt follows at once.',
        schema: webhookDeliverySchema,
        links: { resendWebhookDelivery: { operationId: 'resendWebhookDelivery', parameters: { id: '$response.body#/id' } } },
      },
    },
    async handler({ caller, params, db, clock, workflows, afterCommit }) {
      const delivery = await createPingDelivery(db, await endpoint(db, params.id, caller), clock.now());
      afterCommit(sendOnce(workflows, delivery));
      return { status: 202, body: (await deliveriesWithAttempts(db, [delivery]))[0] };
    },
  }),
  listRoute<WebhookDeliveryRow>({
    path: '/v1/webhook_endpoints/{id}/deliveries',
    operationId: 'listWebhookDeliveries',
    summary: 'List the endpoint\'s deliveries with every attempt, newest first',
    tag: 'Webhooks',
    auth: {},
    within: endpointTable,
    kind: 'webhookDelivery',
    query: deliveryListQuerySchema,
    item: webhookDeliverySchema,
    answer: 'A page of deliveries.',
    rows: ({ db, params }) => db('webhook_deliveries').where({ endpoint_id: params.id }),
    pageView: deliveriesWithAttempts,
  }),
  defineRoute<unknown, unknown, { id: string }>({
    method: 'POST',
    path: '/v1/webhook_deliveries/{id}/resend',
    operationId: 'resendWebhookDelivery',
    summary: 'Send a delivery again by hand (one attempt)',
    tag: 'Webhooks',
    auth: {},
    idempotent: true,
    params: { id: idPattern('webhookDelivery') },
    responses: { 202: { description: 'The delivery; the attempt follows at once.', schema: webhookDeliverySchema } },
    async handler({ caller, params, db, workflows, afterCommit }) {
      const delivery = await findOwned<WebhookDeliveryRow>(db, 'webhook_deliveries', params.id, caller, 'webhook delivery');
      if (delivery.status === 'pending') {
        throw new ApiError('CONFLICT', 'The delivery is still on its retry schedule; re-send it once it has ended.');
      }
      afterCommit(sendOnce(workflows, delivery));
      return { status: 202, body: (await deliveriesWithAttempts(db, [delivery]))[0] };
    },
  }),
];
