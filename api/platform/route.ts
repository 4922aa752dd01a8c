// What every API route declares: its address, who may call it, the JSON Schemas of its input and
// output, and a thin handler. The platform chain, the router and the OpenAPI document are all
// built from these declarations, so the document always describes the API as it runs.
import type { KeyKind, PermissionNeed } from '../../domain/api-keys';
import type { ErrorCode, Reason } from '../../domain/errors';
import type { AccountScope, ServiceContext } from '../../services/context';
import type { KeyToRecord } from '../../db/idempotency-keys';
import type { JsonSchema } from '../schemas/json-schema';

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

/** The key that called: the account and mode it acts for (a service's scope), and what it is. */
export interface Caller extends AccountScope {
  keyId: string;
  kind: KeyKind;
}

/**
 * A handler's input: the service context (a transaction for writes, committed with the
 * idempotency record; the pool for reads and one-statement writes), so a handler passes it
 * straight to its service, and the request's parts.
 */
export interface HandlerInput<Body, Query, Params> extends ServiceContext {
  caller: Caller;
  body: Body;
  query: Query;
  params: Params;
  /**
   * On an IK route whose write is one statement (`transaction: 'statement'`): the key that
   * statement records with its answer (claimKeySql in db/idempotency-keys.ts).
   */
  idempotencyKey?: KeyToRecord;
}

export interface HandlerResult {
  status: number;
  body: unknown;
  /** The body already serialised, when the handler had to (to record it with its key). */
  json?: string;
}

/**
 * An OpenAPI link: the operation this answer's values feed (`id` from `$response.body#/id`), so
 * clients and schemathesis's stateful phase can follow a new object to the calls that take it.
 */
export interface ResponseLink {
  operationId: string;
  parameters: Record<string, string>;
}

export interface ResponseSpec {
  description: string;
  schema: JsonSchema;
  links?: Record<string, ResponseLink>;
}

export interface RouteSpec<Body = unknown, Query = unknown, Params = Record<string, string>> {
  method: HttpMethod;
  /** OpenAPI form: `/v1/customers/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** Who may call: the key kinds allowed (secret alone unless stated) and the permission needed. */
  auth: { permission?: PermissionNeed; kinds?: readonly KeyKind[] } | 'public';
  /** Writes marked IK require an Idempotency-Key. */
  idempotent?: boolean;
  /** Path parameters and the pattern each must match (else 404: no such object). */
  params?: Record<string, string>;
  query?: JsonSchema;
  body?: JsonSchema;
  responses: Record<number, ResponseSpec>;
  /** Reasons (or bare codes) this route can answer besides the platform's own (for the OpenAPI document). */
  errors?: readonly (Reason | ErrorCode)[];
  /**
   * Writes run in a knex transaction unless stated. `statement`: the handler writes in a single
   * statement, atomic on its own, with no transaction around it; on an IK route that statement
   * also records the key with the answer (`idempotencyKey`), and throws KeyTaken when the key is
   * held. Two round trips instead of six, for the hottest write. `steps`: the handler commits
   * its steps one by one (a processor is called between them, with no transaction held); on an
   * IK route the key is claimed before and its answer recorded after the last.
   */
  transaction?: 'knex' | 'statement' | 'steps';
  /** Cross-origin browser requests: `own` (the service's origins) unless stated. */
  cors?: 'any' | 'own';
  handler(input: HandlerInput<Body, Query, Params>): Promise<HandlerResult>;
}

/** Keeps handler types while collecting routes of different shapes in one table. */
export function defineRoute<Body, Query, Params = Record<string, string>>(
  spec: RouteSpec<Body, Query, Params>,
): RouteSpec {
  return spec as unknown as RouteSpec;
}

export function isWrite(method: HttpMethod): boolean {
  return method !== 'GET';
}
