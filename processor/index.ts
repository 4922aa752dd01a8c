// Which processor takes a mode's payments: the sandbox in test mode. Live mode has no adapter
// yet (docs/reference/checkouts.md), so live payments cannot be handed over.
import type { Knex } from 'knex';
import type { Mode } from '../domain/api-keys';
import type { Clock } from '../domain/clock';
import type { CardProcessor } from './port';
import { createSandboxProcessor } from './sandbox';

export interface Processors {
  forMode(mode: Mode): CardProcessor | null;
}

export function createProcessors(deps: { db: Knex; clock: Clock; publicBaseUrl: () => string; sandboxSettlementMs?: number }): Processors {
  const sandbox = createSandboxProcessor(deps);
  return { forMode: (mode) => (mode === 'test' ? sandbox : null) };
}
