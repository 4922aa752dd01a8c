import { idPattern } from '../../domain/ids';
import { listQueryProperties } from '../platform/pagination';
import { countSchema, modeSchema, named, nullable, object, timestampSchema } from './json-schema';
import { eventTypeSchema } from './event';

const urlSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 2000,
  // https or http (either case), a host without credentials, then the path.
  pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#@\\s]+([/?#]|$)',
  examples: ['https://shop.example/kasi/webhooks'],
  description: 'Live: https, never to a host that is or resolves to an internal address. Test: https, or http on localhost where the operator allows it.',
};
const eventTypesSchema = { type: 'array', items: eventTypeSchema, minItems: 1, uniqueItems: true, description: 'The event types sent here; omit (or null) for all.' };

export const webhookEndpointCreateSchema = object({ url: urlSchema, eventTypes: eventTypesSchema }, ['url']);

export const webhookEndpointUpdateSchema = object({ url: urlSchema, eventTypes: nullable(eventTypesSchema), enabled: { type: 'boolean' } });

export const webhookEndpointSchema = named('WebhookEndpoint', {
  type: 'object',
  required: ['object', 'id', 'mode', 'url', 'enabled', 'eventTypes', 'createdAt'],
  properties: {
    object: { const: 'webhook_endpoint' },
    id: { type: 'string', pattern: idPattern('webhookEndpoint') },
    mode: modeSchema,
    url: { type: 'string' },
    enabled: { type: 'boolean' },
    eventTypes: nullable({ type: 'array', items: { type: 'string' } }),
    createdAt: timestampSchema,
  },
});

export const webhookEndpointWithSecretSchema = named('WebhookEndpointWithSecret', {
  allOf: [webhookEndpointSchema],
  type: 'object',
  required: ['secret'],
  properties: { secret: { type: 'string', description: 'The signing secret, shown this once.' } },
});

export const webhookAttemptSchema = named('WebhookAttempt', {
  type: 'object',
  required: ['object', 'deliveryId', 'attemptNumber', 'attemptedAt', 'statusCode', 'latencyMs', 'responseBody', 'error'],
  properties: {
    object: { const: 'webhook_attempt' },
    deliveryId: { type: 'string' },
    attemptNumber: countSchema,
    attemptedAt: timestampSchema,
    statusCode: nullable({ type: 'integer', minimum: 100, maximum: 999 }),
    latencyMs: countSchema,
    responseBody: nullable({ type: 'string', description: 'The first 1024 bytes of the answer.' }),
    error: nullable({ type: 'string', description: 'Why no answer came (timeout, connection refused, refused destination).' }),
  },
});

export const webhookDeliverySchema = named('WebhookDelivery', {
  type: 'object',
  required: ['object', 'id', 'mode', 'webhookEndpointId', 'eventId', 'eventType', 'status', 'attemptCount', 'nextAttemptAt', 'deliveredAt', 'failedAt', 'createdAt', 'attempts'],
  properties: {
    object: { const: 'webhook_delivery' },
    id: { type: 'string', pattern: idPattern('webhookDelivery') },
    mode: modeSchema,
    webhookEndpointId: { type: 'string' },
    eventId: nullable({ type: 'string' }),
    eventType: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
    attemptCount: countSchema,
    nextAttemptAt: nullable(timestampSchema),
    deliveredAt: nullable(timestampSchema),
    failedAt: nullable(timestampSchema),
    createdAt: timestampSchema,
    attempts: { type: 'array', items: webhookAttemptSchema },
  },
});

export const webhookEndpointListQuerySchema = object(listQueryProperties('webhookEndpoint'));

export const deliveryListQuerySchema = object(listQueryProperties('webhookDelivery'));
