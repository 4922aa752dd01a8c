// GET /v1/events and GET /v1/events/{id}: public events of the key's mode.
import { eventsQuery, type EventRow } from '../../db/events';
import { eventView } from '../../views/event';
import { type ListQuery } from '../platform/pagination';
import { getRoute, listRoute } from '../platform/resource-routes';
import { eventListQuerySchema, eventSchema } from '../schemas/event';

export const eventRoutes = [
  listRoute<EventRow, ListQuery & { type?: string; since?: string }>({
    path: '/v1/events',
    operationId: 'listEvents',
    summary: 'List events, newest first',
    tag: 'Events',
    auth: { permission: 'events:read' },
    kind: 'event',
    query: eventListQuerySchema,
    item: eventSchema,
    answer: 'A page of events.',
    rows: ({ db, scope, query }) => eventsQuery(db, scope, { type: query.type, since: query.since === undefined ? undefined : new Date(query.since) }),
    view: eventView,
  }),
  getRoute<EventRow>({
    path: '/v1/events/{id}',
    operationId: 'getEvent',
    summary: 'Get an event',
    tag: 'Events',
    auth: { permission: 'events:read' },
    kind: 'event',
    table: 'events',
    item: eventSchema,
    answer: 'The event, exactly as webhooks send it.',
    view: eventView,
  }),
];
