// The list and get routes of a resource, from one declaration each: the resource states its path,
// id kind, item schema, query (the rows a list pages through, narrowed by its filters) and view;
// the factory adds what every such route does the same way (the id's path pattern, the list's
// `limit` and `cursor`, the keyset page, the ownership check and its 404s, the list envelope).
import type { Knex } from 'knex';
import type { Mode } from '../../domain/api-keys';
import { idPattern, type IdKind } from '../../domain/ids';
import type { JsonSchema } from '../schemas/json-schema';
import { object } from '../schemas/json-schema';
import { findOwned } from '../../services/owned';
import { builderPage, listQueryProperties, listSchema, page, type ListQuery, type PageBounds } from './pagination';
import { defineRoute, type Caller, type ResponseLink, type RouteSpec } from './route';

type Db = Knex | Knex.Transaction;

/** What every list and get route declares alike. */
interface ResourceRouteBase {
  /** OpenAPI form: `/v1/customers`, `/v1/customers/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  auth: RouteSpec['auth'];
  /** The schema of one object (a list answers a page of them). */
  item: JsonSchema;
  /** The 200 answer's description: `A page of customers.`, `The customer.` */
  answer: string;
  links?: Record<string, ResponseLink>;
}

/** The owned object named by `{id}` in the path: its id kind, its table, and its noun in 404s. */
export interface OwnedObject {
  kind: IdKind;
  table: string;
  /** In `No <noun> with id …`; the kind in words (`webhookEndpoint`: `webhook endpoint`) unless stated. */
  noun?: string;
}

interface ListInput<Query> {
  db: Db;
  scope: { accountId: string; mode: Mode };
  query: Query;
  params: { id: string };
}

export interface ListRouteSpec<Row extends { id: string }, Query extends ListQuery> extends ResourceRouteBase {
  /** The kind of the listed ids: the cursor is one of them. */
  kind: IdKind;
  /**
   * The query string's schema: `listQueryProperties(kind)` and the list's filters. Without
   * filters, `limit` and `cursor` alone.
   */
  query?: JsonSchema;
  /**
   * A list under an object (`/v1/webhook_endpoints/{id}/deliveries`): that object, which must be
   * the caller's (else 404, or mode_mismatch) before anything is listed.
   */
  within?: OwnedObject;
  /**
   * The rows to page through, narrowed by the query's filters: on an account's own list, already
   * to the caller's account and mode (`scope`). Ordered and limited by the page, on `id`.
   */
  rows?(input: ListInput<Query>): Knex.QueryBuilder;
  /**
   * Instead of `rows`, for a list read often: the rows of one page in plain SQL (db/sql.ts), read
   * as `rows` would be. Knex's query builder cost a list of payments more CPU than its query.
   */
  pageRows?(input: ListInput<Query>, bounds: PageBounds): Promise<Row[]>;
  /** Row to public object (`now`: the request's time, for what a view judges by it); or `pageView`, for a view that loads more for the whole page at once. */
  view?: (row: Row, now: Date) => unknown;
  pageView?: (db: Db, rows: Row[]) => Promise<unknown[]>;
}

export interface GetRouteSpec<Row extends { mode: string }> extends ResourceRouteBase, OwnedObject {
  /** Row to public object; it may read more (a checkout's payment). `now`: the request's time. */
  view(row: Row, db: Db, now: Date): unknown;
}

function nounOf(owned: OwnedObject): string {
  return owned.noun ?? owned.kind.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
}

/** The object `id` of `owned`'s table, the caller's own in the key's mode (else 404, or mode_mismatch). */
export const findIn = <Row extends { mode: string }>(db: Db, owned: OwnedObject, id: string, caller: Caller) =>
  findOwned<Row>(db, owned.table, id, caller, nounOf(owned));

/** GET a page of a resource, newest first. */
export function listRoute<Row extends { id: string }, Query extends ListQuery = ListQuery>(spec: ListRouteSpec<Row, Query>): RouteSpec {
  const query = spec.query ?? object(listQueryProperties(spec.kind));
  const cursor = (query.properties as Record<string, JsonSchema> | undefined)?.cursor;
  if (cursor?.pattern !== listQueryProperties(spec.kind).cursor!.pattern) {
    throw new Error(`${spec.operationId}: the query's cursor must be a ${spec.kind} id (listQueryProperties('${spec.kind}'))`);
  }
  if ((spec.view === undefined) === (spec.pageView === undefined)) {
    throw new Error(`${spec.operationId}: give the list one of view and pageView`);
  }
  if ((spec.rows === undefined) === (spec.pageRows === undefined)) {
    throw new Error(`${spec.operationId}: give the list one of rows and pageRows`);
  }
  const { within, pageView, pageRows } = spec;
  const view = spec.view ?? ((row: Row) => row);
  return defineRoute<unknown, Query, { id: string }>({
    ...routeBase(spec),
    ...(within ? { params: { id: idPattern(within.kind) } } : {}),
    query,
    responses: { 200: { description: spec.answer, schema: listSchema(spec.item), ...(spec.links ? { links: spec.links } : {}) } },
    async handler({ caller, query: list, params, db, clock }) {
      if (within) await findIn(db, within, params.id, caller);
      const input = { db, scope: { accountId: caller.account.id, mode: caller.mode }, query: list, params };
      const rows = pageRows === undefined ? builderPage<Row>(spec.rows!(input)) : (bounds: PageBounds) => pageRows(input, bounds);
      const now = clock.now();
      const listed = await page<Row, unknown>(rows, list, (row) => view(row, now));
      return { status: 200, body: pageView ? { ...listed, data: await pageView(db, listed.data as Row[]) } : listed };
    },
  });
}

/** GET one object of a resource by id: the caller's own, in the key's mode. */
export function getRoute<Row extends { mode: string }>(spec: GetRouteSpec<Row>): RouteSpec {
  return defineRoute<unknown, unknown, { id: string }>({
    ...routeBase(spec),
    params: { id: idPattern(spec.kind) },
    responses: { 200: { description: spec.answer, schema: spec.item, ...(spec.links ? { links: spec.links } : {}) } },
    async handler({ caller, params, db, clock }) {
      const row = await findIn<Row>(db, spec, params.id, caller);
      return { status: 200, body: await spec.view(row, db, clock.now()) };
    },
  });
}

function routeBase(spec: ResourceRouteBase) {
  return {
    method: 'GET' as const,
    path: spec.path,
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description !== undefined ? { description: spec.description } : {}),
    tag: spec.tag,
    auth: spec.auth,
  };
}
