// The public TestClock object (DESIGN.md, "Test clocks").
import type { TestClockRow } from '../db/test-clocks';

export function testClockView(row: TestClockRow) {
  return {
    object: 'test_clock' as const,
    id: row.id,
    mode: row.mode,
    name: row.name,
    frozenTime: row.frozen_time.toISOString(),
    status: row.advancing_to === null ? ('ready' as const) : ('advancing' as const),
    createdAt: row.created_at.toISOString(),
    ...(row.deleted_at === null ? {} : { deleted: true as const }),
  };
}
