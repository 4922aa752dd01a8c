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

/**
 * One page of `query` (already filtered to the caller's account and mode), ordered by `column`
 * (the id) descending; the cursor has been validated as an id of the list's kind.
 */
export async function page<Row extends { id: string }, T>(
  query: Knex.QueryBuilder,
  list: ListQuery,
  render: (row: Row) => T,
  column = 'id',
): Promise<ListPage<T>> {
  if (list.cursor !== undefined) void query.where(column, '<', list.cursor);
  const rows = (await query.orderBy(column, 'desc').limit(list.limit + 1)) as Row[];
  const hasMore = rows.length > list.limit;
  const pageRows = hasMore ? rows.slice(0, list.limit) : rows;
  return {
    object: 'list',
    data: pageRows.map(render),
    hasMore,
    nextCursor: hasMore ? (pageRows[pageRows.length - 1] as Row).id : null,
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
