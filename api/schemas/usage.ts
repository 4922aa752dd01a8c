// Meters, meter events, their summaries and billing alerts: request bodies, queries and the public objects.
import { idPattern } from '../../domain/ids';
import { AGGREGATIONS, USAGE_LIMITS } from '../../domain/usage';
import { listQueryProperties } from '../platform/pagination';
import { modeSchema, named, nullable, object, safeIntegerSchema, timestampSchema } from './json-schema';

const eventName = { type: 'string', minLength: 1, maxLength: 100, pattern: '^[a-z0-9_.-]+$' };

export const meterCreateSchema = object(
  {
    displayName: { type: 'string', minLength: 1, maxLength: 100 },
    eventName: { ...eventName, description: 'The event name the meter counts: one active meter per event name and mode.' },
    aggregation: { type: 'string', enum: [...AGGREGATIONS], description: '`sum` of the values, `count` of the events, or the `last` value (the latest timestamp) in a period.' },
  },
  ['displayName', 'eventName', 'aggregation'],
  { examples: [{ displayName: 'API calls', eventName: 'api_call', aggregation: 'sum' }] },
);

export const meterSchema = named('Meter', {
  type: 'object',
  required: ['object', 'id', 'mode', 'displayName', 'eventName', 'aggregation', 'active', 'createdAt'],
  properties: {
    object: { const: 'meter' },
    id: { type: 'string', pattern: idPattern('meter') },
    mode: modeSchema,
    displayName: { type: 'string' },
    eventName: { type: 'string' },
    aggregation: { type: 'string', enum: [...AGGREGATIONS] },
    active: { type: 'boolean' },
    createdAt: timestampSchema,
  },
});

export const meterListQuerySchema = object(listQueryProperties('meter'));

const meterEventProperties = {
  eventName,
  customerId: { type: 'string', pattern: idPattern('customer') },
  value: { type: 'integer', minimum: 0, maximum: USAGE_LIMITS.maxValue, default: 1 },
  identifier: { type: 'string', minLength: 1, maxLength: USAGE_LIMITS.maxIdentifier, description: 'Deduplicates for 35 days: the same identifier sent again counts nothing. Made when not sent.' },
  timestamp: { type: 'string', format: 'date-time', description: 'Within the past 35 days and at most 5 minutes ahead, in the customer\'s time (a test clock\'s); default now.' },
};

export const meterEventCreateSchema = object(meterEventProperties, ['eventName', 'customerId'], {
  examples: [{ eventName: 'api_call', customerId: 'cus_0l2x9k3m1a2b3c4d5e6f7g8h', value: 1, identifier: 'req_8f14e45f' }],
});

export const meterEventBatchSchema = object({ events: { type: 'array', minItems: 1, maxItems: USAGE_LIMITS.maxBatch, items: object(meterEventProperties, ['eventName', 'customerId']) } }, ['events']);

export const meterEventSchema = named('MeterEvent', {
  type: 'object',
  required: ['object', 'identifier', 'eventName', 'customerId', 'value', 'timestamp', 'duplicate'],
  properties: {
    object: { const: 'meter_event' },
    identifier: { type: 'string' },
    eventName: { type: 'string' },
    customerId: { type: 'string', pattern: idPattern('customer') },
    value: { type: 'integer', minimum: 0, maximum: USAGE_LIMITS.maxValue },
    timestamp: timestampSchema,
    duplicate: { type: 'boolean', description: 'true: the identifier was kept already; this is the first event, and nothing was counted.' },
  },
});

export const meterEventBatchResultSchema = named('MeterEventBatch', {
  type: 'object',
  required: ['object', 'accepted', 'duplicates'],
  properties: { object: { const: 'meter_event_batch' }, accepted: { type: 'integer', minimum: 0, maximum: USAGE_LIMITS.maxBatch }, duplicates: { type: 'integer', minimum: 0, maximum: USAGE_LIMITS.maxBatch } },
});

export const summaryQuerySchema = object(
  {
    customerId: { type: 'string', pattern: idPattern('customer') },
    startTime: { type: 'string', format: 'date-time', description: 'With endTime, midnights in Sri Lanka (usage is kept per day there): events count by their timestamps.' },
    endTime: { type: 'string', format: 'date-time' },
  },
  ['customerId'],
);

export const summaryListSchema = named('MeterEventSummaryList', {
  type: 'object',
  required: ['object', 'data', 'hasMore', 'nextCursor'],
  properties: {
    object: { const: 'list' },
    data: {
      type: 'array',
      items: {
        type: 'object',
        required: ['object', 'meterId', 'customerId', 'startTime', 'endTime', 'aggregatedValue'],
        properties: {
          object: { const: 'meter_event_summary' },
          meterId: { type: 'string', pattern: idPattern('meter') },
          customerId: { type: 'string', pattern: idPattern('customer') },
          startTime: timestampSchema,
          endTime: timestampSchema,
          aggregatedValue: safeIntegerSchema,
        },
      },
    },
    hasMore: { const: false },
    nextCursor: { type: 'null' },
  },
});

export const billingAlertCreateSchema = object(
  {
    title: { type: 'string', minLength: 1, maxLength: 100 },
    meterId: { type: 'string', maxLength: 64 },
    threshold: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    customerId: { type: 'string', pattern: idPattern('customer'), description: 'One customer; every customer when absent.' },
  },
  ['title', 'meterId', 'threshold'],
  { examples: [{ title: '10,000 API calls', meterId: 'mtr_0l2x9k3m1a2b3c4d5e6f7g8h', threshold: 10000 }] },
);

export const billingAlertSchema = named('BillingAlert', {
  type: 'object',
  required: ['object', 'id', 'mode', 'title', 'meterId', 'threshold', 'customerId', 'active', 'createdAt'],
  properties: {
    object: { const: 'billing_alert' },
    id: { type: 'string', pattern: idPattern('billingAlert') },
    mode: modeSchema,
    title: { type: 'string' },
    meterId: { type: 'string', pattern: idPattern('meter') },
    threshold: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    customerId: nullable({ type: 'string', pattern: idPattern('customer') }),
    active: { type: 'boolean' },
    createdAt: timestampSchema,
  },
});

export const billingAlertListQuerySchema = object(listQueryProperties('billingAlert'));
