// Keyset pagination over time-ordered ids: newest first, `limit` 1..100 (default 25), `cursor`
// the previous page's last id. Each page is one indexed range scan, however deep.
import type { Knex } from 'knex';
import { ID_PREFIXES, type IdKind } from '../../domain/ids';
import type { JsonSchema } from '../schemas/json-schema';

/**
 * `limit` and `cursor` of a list of `kind`. The cursor is an id of the list's own kind (within the
 * spec's cursor pattern), so the document says which ids a list takes and another list's cursor
 * is refused as invalid rather than misread.
 */
export function listQueryProperties(kind: IdKind): Record<string, JsonSchema> {
  return {
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 25, description: 'Page size, 1 to 100.' },
    cursor: { type: 'string', pattern: `^${ID_PREFIXES[kind]}_[0-9a-z]{20,32}$`, description: 'The previous page\'s `nextCursor`.' },
  };
}

export interface ListQuery {
  limit: number;
  cursor?: string;
}

export interface ListPage<T> {
  object: 'list';
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** Where a page starts and how many rows it takes: those with ids below `cursor`, newest first. */
export interface PageBounds {
  cursor?: string;
  limit: number;
}

/**
 * One page of a list whose rows `fetch` reads (already filtered to the caller's account and mode,
 * at most `limit` of them below the cursor, newest id first); the cursor has been validated as an
 * id of the list's kind. One row more than the page is read, to know whether another follows.
 */
export async function page<Row extends { id: string }, T>(
  fetch: (bounds: PageBounds) => Promise<Row[]>,
  list: ListQuery,
  render: (row: Row) => T,
): Promise<ListPage<T>> {
  const rows = await fetch({ ...(list.cursor !== undefined ? { cursor: list.cursor } : {}), limit: list.limit + 1 });
  const hasMore = rows.length > list.limit;
  const pageRows = hasMore ? rows.slice(0, list.limit) : rows;
  return {
    object: 'list',
    data: pageRows.map(render),
    hasMore,
    nextCursor: hasMore ? (pageRows[pageRows.length - 1] as Row).id : null,
  };
}

/** The rows of a knex query within `bounds`, newest id first. */
export function builderPage<Row>(query: Knex.QueryBuilder): (bounds: PageBounds) => Promise<Row[]> {
  return async ({ cursor, limit }) => {
    if (cursor !== undefined) void query.where('id', '<', cursor);
    return (await query.orderBy('id', 'desc').limit(limit)) as Row[];
  };
}

export function listSchema(item: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['object', 'data', 'hasMore', 'nextCursor'],
    properties: {
      object: { const: 'list' },
      data: { type: 'array', items: item },
      hasMore: { type: 'boolean' },
      nextCursor: { type: ['string', 'null'] },
    },
  };
}
