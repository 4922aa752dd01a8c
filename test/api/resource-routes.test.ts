// The rules of listRoute/getRoute that the API tests do not reach: a list's cursor must be of the
// listed kind, a list has exactly one view, and a missing object is named by its kind in words.
import assert from 'node:assert/strict';
import { ApiError } from '../../domain/errors';
import { listQueryProperties } from '../../api/platform/pagination';
import { getRoute, listRoute } from '../../api/platform/resource-routes';
import type { Caller, HandlerInput } from '../../api/platform/route';
import { object } from '../../api/schemas/json-schema';
import { connect } from '../../db/connection';
import { freshDatabase } from '../support/database';

const list = {
  path: '/v1/things',
  operationId: 'listThings',
  summary: 'List things',
  tag: 'Things',
  auth: {},
  kind: 'customer' as const,
  item: { type: 'object' },
  answer: 'A page of things.',
  rows: () => {
    throw new Error('not reached');
  },
};

describe('listRoute and getRoute', () => {
  it('refuses a list whose query takes another kind\'s cursor, or no cursor', () => {
    assert.throws(() => listRoute({ ...list, query: object(listQueryProperties('payment')), view: (r) => r }), /cursor must be a customer id/);
    assert.throws(() => listRoute({ ...list, query: object({ limit: listQueryProperties('customer').limit! }), view: (r) => r }), /cursor must be a customer id/);
    // Without filters, the query is `limit` and the kind's cursor.
    assert.deepEqual(listRoute({ ...list, view: (r) => r }).query, object(listQueryProperties('customer')));
  });

  it('wants exactly one of view and pageView', () => {
    assert.throws(() => listRoute(list), /one of view and pageView/);
    assert.throws(() => listRoute({ ...list, view: (r) => r, pageView: async (_db, rows) => rows }), /one of view and pageView/);
  });

  it('names a missing object by its kind in words, or by its stated noun', async () => {
    const database = await freshDatabase();
    const db = connect(database.url, 1);
    const caller = { account: { id: 'acct_1' }, mode: 'test' } as unknown as Caller;
    const get = (noun?: string) =>
      getRoute({ ...list, operationId: 'getThing', answer: 'The thing.', kind: 'webhookEndpoint', table: 'webhook_endpoints', ...(noun ? { noun } : {}), view: (r) => r });
    for (const [route, message] of [
      [get(), 'No webhook endpoint with id we_x.'],
      [get('hook'), 'No hook with id we_x.'],
    ] as const) {
      await assert.rejects(
        route.handler({ caller, params: { id: 'we_x' }, db } as unknown as HandlerInput<unknown, unknown, Record<string, string>>),
        (e: unknown) => e instanceof ApiError && e.message === message,
      );
    }
    await db.destroy();
    await database.drop();
  });
});
