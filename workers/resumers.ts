// Boot-time restart: one resumer per long-lived object kind, each returning the workflow start of
// every object of its kind that is not yet final (see docs/orchestration.md).
import type { Knex } from 'knex';
import type { Clock } from '../domain/clock';
import type { Resumer } from './orchestration';

export function createResumers(_deps: { db: Knex; clock: Clock }): Resumer[] {
  return [];
}
