// Test clocks (DESIGN.md, "Test clocks"; docs/reference/test-clocks.md): POST/GET /v1/test_helpers/test_clocks,
// GET and DELETE /v1/test_helpers/test_clocks/{id}, POST .../{id}/advance. Secret test keys only:
// a live key is answered 403. A deleted clock is gone (404).
import type { Knex } from 'knex';
import { ApiError } from '../../../domain/errors';
import { idPattern } from '../../../domain/ids';
import { testClocksQuery, type TestClockRow } from '../../../db/test-clocks';
import { advanceTestClock } from '../../../services/test-clocks/advance';
import { createTestClock } from '../../../services/test-clocks/create';
import { deleteTestClock } from '../../../services/test-clocks/delete';
import { transactional } from '../../../services/run';
import { testClockView } from '../../../views/test-clock';
import { findIn, listRoute } from '../../platform/resource-routes';
import { defineRoute, type Caller } from '../../platform/route';
import { testClockAdvanceSchema, testClockCreateSchema, testClockListQuerySchema, testClockSchema } from '../../schemas/test-clock';

const TAG = 'Test clocks';
const PATH = '/v1/test_helpers/test_clocks';
const clockTable = { kind: 'testClock', table: 'test_clocks', noun: 'test clock' } as const;
const params = { id: idPattern('testClock') };

function testModeOnly(mode: Caller['mode']): void {
  if (mode === 'live') throw new ApiError('key_not_permitted', 'Test clocks are for test mode: use a secret test key.');
}

/** The caller's clock named in the path, not deleted. */
async function clockOf(db: Knex | Knex.Transaction, id: string, caller: Caller): Promise<TestClockRow> {
  testModeOnly(caller.mode);
  const clock = await findIn<TestClockRow>(db, clockTable, id, caller);
  if (clock.deleted_at !== null) throw new ApiError('NOT_FOUND', `No test clock with id ${id}: it was deleted.`);
  return clock;
}

export const testClockRoutes = [
  defineRoute<{ frozenTime: string; name?: string }, unknown>({
    method: 'POST',
    path: PATH,
    operationId: 'createTestClock',
    summary: 'Create a test clock',
    description: 'A clock for test mode, frozen at `frozenTime` until you advance it. Customers created with its id live in its time, and so does everything of theirs.',
    tag: TAG,
    auth: { permission: 'billing:write' },
    idempotent: true,
    body: testClockCreateSchema,
    responses: { 201: { description: 'The new clock, ready.', schema: testClockSchema } },
    errors: ['billing_date_invalid'],
    async handler(input) {
      testModeOnly(input.caller.mode);
      return { status: 201, body: testClockView(await createTestClock(input, input.caller, { frozenTime: new Date(input.body.frozenTime), name: input.body.name })) };
    },
  }),
  listRoute<TestClockRow>({
    path: PATH,
    operationId: 'listTestClocks',
    summary: 'List test clocks, newest first',
    tag: TAG,
    auth: { permission: 'billing:read' },
    kind: 'testClock',
    query: testClockListQuerySchema,
    item: testClockSchema,
    answer: 'A page of test clocks.',
    rows: ({ db, scope }) => {
      testModeOnly(scope.mode);
      return testClocksQuery(db, scope);
    },
    view: testClockView,
  }),
  defineRoute<unknown, unknown, { id: string }>({
    method: 'GET',
    path: `${PATH}/{id}`,
    operationId: 'getTestClock',
    summary: 'Get a test clock',
    description: 'Poll it after an advance: `ready` once everything due on the way has happened and settled.',
    tag: TAG,
    auth: { permission: 'billing:read' },
    params,
    responses: { 200: { description: 'The clock.', schema: testClockSchema } },
    async handler(input) {
      return { status: 200, body: testClockView(await clockOf(input.db, input.params.id, input.caller)) };
    },
  }),
  defineRoute<{ frozenTime: string }, unknown, { id: string }>({
    method: 'POST',
    path: `${PATH}/{id}/advance`,
    operationId: 'advanceTestClock',
    summary: 'Advance a test clock',
    description:
      'Moves the clock to `frozenTime`, making everything due on the way happen in time order (renewals, invoices, charges and their retries, trial ends, reminders, emails, events). The clock is `advancing` until all of it has settled, then `ready`. One advance at a time: 409 while one runs.',
    tag: TAG,
    auth: { permission: 'billing:write' },
    idempotent: true,
    params,
    body: testClockAdvanceSchema,
    responses: { 200: { description: 'The clock, `advancing`.', schema: testClockSchema } },
    errors: ['billing_date_invalid'],
    async handler(input) {
      const clock = await clockOf(input.db, input.params.id, input.caller);
      return { status: 200, body: testClockView(await advanceTestClock(input, clock, new Date(input.body.frozenTime))) };
    },
  }),
  defineRoute<unknown, unknown, { id: string }>({
    method: 'DELETE',
    path: `${PATH}/{id}`,
    operationId: 'deleteTestClock',
    summary: 'Delete a test clock',
    description: 'The clock stops (an advance under way goes no further) and is gone: GET answers 404 from now on. Its customers\' subscriptions end with it (`customer.subscription.deleted`).',
    tag: TAG,
    auth: { permission: 'billing:write' },
    params,
    responses: { 200: { description: 'The clock, `deleted: true`.', schema: testClockSchema } },
    async handler(input) {
      const clock = await clockOf(input.db, input.params.id, input.caller);
      return { status: 200, body: testClockView(await deleteTestClock(transactional(input), clock)) };
    },
  }),
];
