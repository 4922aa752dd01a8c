// Webhook endpoints for a dashboard (the CLI calls the same services): create, list, read,
// update, rotate the secret, send a test.ping, list deliveries with their attempts, and re-send a
// delivery by hand. See docs/reference/webhooks.md.
import { idPattern } from '../../domain/ids';
import { webhookEndpointsQuery, type WebhookEndpointRow } from '../../db/webhook-endpoints';
import { attemptsOf, deliveriesOfEndpointQuery, type WebhookDeliveryRow } from '../../db/webhook-deliveries';
import { createWebhookEndpoint } from '../../services/webhook-endpoints/create';
import { pingWebhookEndpoint } from '../../services/webhook-endpoints/ping';
import { rotateWebhookSecret } from '../../services/webhook-endpoints/rotate-secret';
import { updateWebhookEndpoint, type WebhookEndpointChanges } from '../../services/webhook-endpoints/update';
import { resendWebhookDelivery } from '../../services/webhook-deliveries/resend';
import { webhookEndpointView, webhookEndpointWithSecretView } from '../../views/webhook-endpoint';
import { webhookDeliveriesView, webhookDeliveryView } from '../../views/webhook-delivery';
import { findIn, getRoute, listRoute, type OwnedObject } from '../platform/resource-routes';
import { defineRoute } from '../platform/route';
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

// Reading endpoints and deliveries shows where events go and what they said: `events:read`.
// Whatever sends events somewhere, or hands out a secret that signs them, could carry the
// account's customers to whoever holds a restricted key: only a key holding every permission.
const readAuth = { permission: 'events:read' } as const;
const manageAuth = { permission: 'all' } as const;

/** A new endpoint's id feeds every call on the endpoint. */
const endpointLinks = Object.fromEntries(
  ['getWebhookEndpoint', 'updateWebhookEndpoint', 'rotateWebhookSecret', 'pingWebhookEndpoint', 'listWebhookDeliveries'].map((operationId) => [
    operationId,
    { operationId, parameters: { id: '$response.body#/id' } },
  ]),
);

/** The endpoint or delivery named in the path: the caller's own, in the key's mode. */
const endpointTable = { kind: 'webhookEndpoint', table: 'webhook_endpoints' } as const satisfies OwnedObject;
const deliveryTable = { kind: 'webhookDelivery', table: 'webhook_deliveries' } as const satisfies OwnedObject;

export const webhookEndpointRoutes = [
  defineRoute<{ url: string; eventTypes?: string[] }, unknown>({
    method: 'POST',
    path: '/v1/webhook_endpoints',
    operationId: 'createWebhookEndpoint',
    summary: 'Add a webhook endpoint (the signing secret is shown once)',
    tag: 'Webhooks',
    auth: manageAuth,
    idempotent: true,
    body: webhookEndpointCreateSchema,
    responses: { 201: { description: 'The endpoint and its signing secret.', schema: webhookEndpointWithSecretSchema, links: endpointLinks } },
    async handler(input) {
      const { endpoint, secret } = await createWebhookEndpoint(input, input.caller, input.body);
      return { status: 201, body: webhookEndpointWithSecretView(endpoint, secret) };
    },
  }),
  listRoute<WebhookEndpointRow>({
    path: '/v1/webhook_endpoints',
    operationId: 'listWebhookEndpoints',
    summary: 'List webhook endpoints, newest first',
    tag: 'Webhooks',
    auth: readAuth,
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
    auth: readAuth,
    ...endpointTable,
    item: webhookEndpointSchema,
    answer: 'The endpoint.',
    view: webhookEndpointView,
  }),
  defineRoute<WebhookEndpointChanges, unknown, { id: string }>({
    method: 'POST',
    path: '/v1/webhook_endpoints/{id}',
    operationId: 'updateWebhookEndpoint',
    summary: 'Change a webhook endpoint: URL, event types, enabled',
    tag: 'Webhooks',
    auth: manageAuth,
    idempotent: true,
    params: endpointParams,
    body: webhookEndpointUpdateSchema,
    responses: { 200: { description: 'The endpoint.', schema: webhookEndpointSchema } },
    async handler(input) {
      const endpoint = await findIn<WebhookEndpointRow>(input.db, endpointTable, input.params.id, input.caller);
      return { status: 200, body: webhookEndpointView(await updateWebhookEndpoint(input, endpoint, input.body)) };
    },
  }),
  defineRoute<unknown, unknown, { id: string }>({
    method: 'POST',
    path: '/v1/webhook_endpoints/{id}/rotate_secret',
    operationId: 'rotateWebhookSecret',
    summary: 'Rotate the signing secret; the old one keeps signing alongside for 24 hours',
    tag: 'Webhooks',
    auth: manageAuth,
    idempotent: true,
    params: endpointParams,
    responses: { 200: { description: 'The endpoint and its new signing secret.', schema: webhookEndpointWithSecretSchema } },
    async handler(input) {
      const endpoint = await findIn<WebhookEndpointRow>(input.db, endpointTable, input.params.id, input.caller);
      return { status: 200, body: webhookEndpointWithSecretView(endpoint, await rotateWebhookSecret(input, endpoint)) };
    },
  }),
  defineRoute<unknown, unknown, { id: string }>({
    method: 'POST',
    path: '/v1/webhook_endpoints/{id}/ping',
    operationId: 'pingWebhookEndpoint',
    summary: 'Send a test.ping to this endpoint alone',
    tag: 'Webhooks',
    auth: manageAuth,
    idempotent: true,
    params: endpointParams,
    responses: {
      202: {
        description: 'The ping delivery; its attempt follows at once.',
        schema: webhookDeliverySchema,
        links: { resendWebhookDelivery: { operationId: 'resendWebhookDelivery', parameters: { id: '$response.body#/id' } } },
      },
    },
    async handler(input) {
      const endpoint = await findIn<WebhookEndpointRow>(input.db, endpointTable, input.params.id, input.caller);
      // Its attempt starts once this commits: none is made yet.
      return { status: 202, body: webhookDeliveryView(await pingWebhookEndpoint(input, endpoint, 'workflow'), []) };
    },
  }),
  listRoute<WebhookDeliveryRow>({
    path: '/v1/webhook_endpoints/{id}/deliveries',
    operationId: 'listWebhookDeliveries',
    summary: 'List the endpoint\'s deliveries with every attempt, newest first',
    tag: 'Webhooks',
    auth: readAuth,
    within: endpointTable,
    kind: 'webhookDelivery',
    query: deliveryListQuerySchema,
    item: webhookDeliverySchema,
    answer: 'A page of deliveries.',
    rows: ({ db, params }) => deliveriesOfEndpointQuery(db, params.id),
    pageView: async (db, deliveries) => webhookDeliveriesView(deliveries, await attemptsOf(db, deliveries)),
  }),
  defineRoute<unknown, unknown, { id: string }>({
    method: 'POST',
    path: '/v1/webhook_deliveries/{id}/resend',
    operationId: 'resendWebhookDelivery',
    summary: 'Send a delivery again by hand (one attempt)',
    tag: 'Webhooks',
    auth: manageAuth,
    idempotent: true,
    params: { id: idPattern('webhookDelivery') },
    responses: { 202: { description: 'The delivery; the attempt follows at once.', schema: webhookDeliverySchema } },
    async handler(input) {
      const delivery = await resendWebhookDelivery(input, await findIn<WebhookDeliveryRow>(input.db, deliveryTable, input.params.id, input.caller));
      return { status: 202, body: webhookDeliveryView(delivery, await attemptsOf(input.db, [delivery])) };
    },
  }),
];
