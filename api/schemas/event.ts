import { PUBLIC_EVENT_TYPES } from '../../domain/event-types';
import { idPattern } from '../../domain/ids';
import { listQueryProperties } from '../platform/pagination';
import { modeSchema, named, object, timestampSchema } from './json-schema';

export const eventTypeSchema = { type: 'string', enum: [...PUBLIC_EVENT_TYPES] };

export const eventListQuerySchema = object({
  ...listQueryProperties('event'),
  type: { ...eventTypeSchema, description: 'Only events of this type (any listed type; test.ping is never listed).' },
  since: { type: 'string', format: 'date-time', description: 'Only events created at or after this ISO 8601 time.' },
});

export const eventSchema = named('Event', {
  type: 'object',
  description: 'The same envelope is POSTed to webhook endpoints.',
  required: ['id', 'object', 'type', 'mode', 'created', 'data'],
  properties: {
    id: { type: 'string', pattern: idPattern('event') },
    object: { const: 'event' },
    type: { type: 'string' },
    mode: modeSchema,
    created: timestampSchema,
    data: { type: 'object', description: 'The object the event is about (for payment.succeeded, the full Payment).' },
  },
});
