// Create a test clock (test mode only): a time of the merchant's choosing, within two years of
// now, that customers made on it live in.
import { newId } from '../../crypto/ids';
import { insertTestClock, type TestClockRow } from '../../db/test-clocks';
import type { AccountScope, ServiceContext } from '../context';
import { frozenTimeRefusal } from './clock-rules';

export async function createTestClock(ctx: ServiceContext, scope: AccountScope, input: { frozenTime: Date; name?: string }): Promise<TestClockRow> {
  const now = ctx.clock.now();
  const refusal = frozenTimeRefusal(input.frozenTime, now);
  if (refusal !== null) throw refusal;
  const row: TestClockRow = {
    id: newId('testClock', now.getTime()),
    account_id: scope.account.id,
    mode: 'test',
    name: input.name ?? null,
    frozen_time: input.frozenTime,
    advancing_to: null,
    created_at: now,
    deleted_at: null,
  };
  await insertTestClock(ctx.db, row);
  return row;
}
