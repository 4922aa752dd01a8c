// The rules of listRoute/getRoute that the API tests do not reach: a list's cursor must be of the
// listed kind, a list has exactly one view, a missing object is named by its kind in words, and
// objects named at one moment (read together) are each found as the caller's own or not at all.
import assert from 'node:assert/strict';
import { ApiError } from '../../domain/errors';
import { systemClock } from '../../domain/clock';
import { listQueryProperties } from '../../api/platform/pagination';
import { getRoute, listRoute } from '../../api/platform/resource-routes';
import type { Caller, HandlerInput } from '../../api/platform/route';
import { object } from '../../api/schemas/json-schema';
import { connect } from '../../db/connection';
import { createMerchant } from '../../db/merchants';
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

  it('wants exactly one of rows and pageRows', () => {
    const { rows: _rows, ...noRows } = list;
    assert.throws(() => listRoute({ ...noRows, view: (r) => r }), /one of rows and pageRows/);
    assert.throws(() => listRoute({ ...list, view: (r) => r, pageRows: async () => [] }), /one of rows and pageRows/);
  });

  it('names a missing object by its kind in words, or by its stated noun; objects named at once are each found as their own', async () => {
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

    // Named at the same moment, read together (services/owned.ts): each request still gets its own.
    const now = new Date();
    const [ours, theirs] = [await createMerchant(db, { name: 'Ours', now }), await createMerchant(db, { name: 'Theirs', now })];
    const endpoint = (id: string, accountId: string, mode: string) => ({ id, account_id: accountId, mode, url: 'https://example.com/hook', created_at: now, updated_at: now });
    await db('webhook_endpoints').insert([endpoint('we_ours', ours.account.id, 'test'), endpoint('we_live', ours.account.id, 'live'), endpoint('we_theirs', theirs.account.id, 'test')]);
    const ourCaller = { account: { id: ours.account.id }, mode: 'test' } as unknown as Caller;
    const answers = await Promise.allSettled(
      ['we_ours', 'we_live', 'we_theirs', 'we_x'].map((id) => get().handler({ caller: ourCaller, params: { id }, db, clock: systemClock } as unknown as HandlerInput<unknown, unknown, Record<string, string>>)),
    );
    assert.deepEqual(
      answers.map((a) => (a.status === 'fulfilled' ? (a.value as { body: { id: string } }).body.id : (a.reason as ApiError).message)),
      ['we_ours', 'The webhook endpoint we_live is a live object: use a live key.', 'No webhook endpoint with id we_theirs.', 'No webhook endpoint with id we_x.'],
    );
    await db.destroy();
    await database.drop();
  });
});
