// The one check of where an endpoint may send: the URL of a new endpoint, or a changed one.
import { ApiError } from '../../domain/errors';
import type { Mode } from '../../domain/api-keys';
import { destinationProblem } from '../../net/webhook-http';
import type { ServiceContext } from '../context';

/**
 * Refuses a URL that cannot receive `mode`'s webhooks (live: https, never a host that is or
 * resolves to an internal address; test: http on loopback where the operator allows it).
 */
export async function checkDestination(ctx: ServiceContext, url: string, mode: Mode): Promise<void> {
  const problem = await destinationProblem(url, { mode, allowLoopback: ctx.config.webhookAllowLoopback });
  if (problem) throw new ApiError('VALIDATION_FAILED', 'The endpoint URL cannot receive webhooks.', { fields: [{ path: 'url', message: problem }] });
}
