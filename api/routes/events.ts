// GET /v1/events and GET /v1/events/{id}: public events of the key's mode.
import { idPattern } from '../../domain/ids';
import { eventView, type EventRow } from '../../db/events';
import { findOwned } from '../platform/ownership';
import { listSchema, page, type ListQuery } from '../platform/pagination';
import { defineRoute } from '../platform/route';
import { eventListQuerySchema, eventSchema } from '../schemas/event';

export const eventRoutes = [
  defineRoute<unknown, ListQuery & { type?: string; since?: string }>({
    method: 'GET',
    path: '/v1/events',
    operationId: 'listEvents',
    summary: 'List events, newest first',
    tag: 'Events',
    auth: { permission: 'events:read' },
    query: eventListQuerySchema,
    responses: { 200: { description: 'A page of events.', schema: listSchema(eventSchema) } },
    async handler({ caller, query, db }) {
      const rows = db<EventRow>('events').where({ account_id: caller.account.id, mode: caller.mode });
      if (query.type !== undefined) void rows.where('type', query.type);
      if (query.since !== undefined) void rows.where('created_at', '>=', new Date(query.since));
      return { status: 200, body: await page<EventRow, unknown>(rows, query, eventView) };
    },
  }),
  defineRoute<unknown, unknown, { id: string }>({
    method: 'GET',
    path: '/v1/events/{id}',
    operationId: 'getEvent',
    summary: 'Get an event',
    tag: 'Events',
    auth: { permission: 'events:read' },
    params: { id: idPattern('event') },
    responses: { 200: { description: 'The event, exactly as webhooks send it.', schema: eventSchema } },
    async handler({ caller, params, db }) {
      return { status: 200, body: eventView(await findOwned<EventRow>(db, 'events', params.id, caller, 'event')) };
    },
  }),
];
