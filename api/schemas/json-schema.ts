// JSON Schema (2020-12, the dialect of OpenAPI 3.1) as plain objects. Schemas that are API
// resources are given a name with `named`, so the OpenAPI document shows them once under
// components and refers to them; validation sees the plain schema.
export type JsonSchema = { [keyword: string]: unknown };

const names = new WeakMap<JsonSchema, string>();

export function named<S extends JsonSchema>(name: string, schema: S): S {
  names.set(schema, name);
  return schema;
}

export function schemaName(schema: JsonSchema): string | undefined {
  return names.get(schema);
}

/** A strict object: every listed property allowed, the `required` ones needed, nothing else. */
export function object(properties: Record<string, JsonSchema>, required: string[] = [], extra: JsonSchema = {}): JsonSchema {
  return { type: 'object', properties, required, additionalProperties: false, ...extra };
}

export const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });

export const timestampSchema: JsonSchema = { type: 'string', format: 'date-time', description: 'ISO 8601 UTC with milliseconds' };

export const modeSchema: JsonSchema = { type: 'string', enum: ['test', 'live'] };

/** PostgreSQL's `integer` (int4) upper bound. */
export const INT4_MAX = 2_147_483_647;

/**
 * An amount an answer carries, from a bigint column: any integer JavaScript holds exactly (every
 * integer in a schema has a maximum no client can round; what a request may send is bounded
 * tighter, field by field).
 */
export const safeIntegerSchema: JsonSchema = { type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };

/** A count an answer carries, from an int4 column. */
export const countSchema: JsonSchema = { type: 'integer', minimum: 0, maximum: INT4_MAX };
