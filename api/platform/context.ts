// What the platform chain leaves on each request for the next link and the handler.
import type { ParameterizedContext } from 'koa';
import type { Caller, RouteSpec } from './route';

export interface ApiState {
  traceId: string;
  route?: RouteSpec;
  caller?: Caller;
  /** The body as received, for the idempotency fingerprint. */
  rawBody?: string;
  body?: unknown;
  query?: unknown;
  params?: Record<string, string>;
}

export type ApiContext = ParameterizedContext<ApiState>;
