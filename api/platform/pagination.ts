// Keyset pagination over time-ordered ids: newest first, `limit` 1..100 (default 25), `cursor`
// the previous page's last id. Each page is one indexed range scan, however deep.
import type { Knex } from 'knex';
import { ApiError } from '../../domain/errors';
import { CURSOR_PATTERN, ID_PREFIXES, type IdKind } from '../../domain/ids';
import type { JsonSchema } from '../schemas/json-schema';

export const listQueryProperties: Record<string, JsonSchema> = {
  limit: { type: 'integer', minimum: 1, maximum: 100, default: 25, description: 'Page size, 1 to 100.' },
  cursor: { type: 'string', pattern: CURSOR_PATTERN, description: 'The previous page\'s `nextCursor`.' },
};

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
 * (the id) descending. A cursor for another kind of object is refused rather than misread.
 */
export async function page<Row extends { id: string }, T>(
  query: Knex.QueryBuilder,
  list: ListQuery,
  kind: IdKind,
  render: (row: Row) => T,
  column = 'id',
): Promise<ListPage<T>> {
  if (list.cursor !== undefined) {
    if (!list.cursor.startsWith(`${ID_PREFIXES[kind]}_`)) {
      throw new ApiError('VALIDATION_FAILED', 'The cursor does not belong to this list.', {
        fields: [{ path: 'cursor', message: `Must be a ${ID_PREFIXES[kind]}_ id: the previous page's nextCursor.` }],
      });
    }
    void query.where(column, '<', list.cursor);
  }
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
