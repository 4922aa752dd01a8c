// GET /v1/events and GET /v1/events/{id}: public events of the key's mode.
import { eventView, type EventRow } from '../../db/events';
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
    rows({ db, scope, query }) {
      const rows = db<EventRow>('events').where({ account_id: scope.accountId, mode: scope.mode });
      if (query.type !== undefined) void rows.where('type', query.type);
      if (query.since !== undefined) void rows.where('created_at', '>=', new Date(query.since));
      return rows;
    },
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
