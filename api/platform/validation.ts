// Strict validation with ajv from the routes' JSON Schemas: unknown keys refused, integers are
// integers (1500.5 and "1500" are refused, never rounded), and `fields` names every offending
// path. Query strings are typed from the schema by hand, exactly: "25" is an integer, "2.5" and
// "" are not. No string may hold U+0000. `format: email` is a bare address (domain/email-address.ts).
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Next } from 'koa';
import { isEmailAddress } from '../../domain/email-address';
import { ApiError, type FieldError, type Reason } from '../../domain/errors';
import type { JsonSchema } from '../schemas/json-schema';
import type { ApiContext } from './context';
import type { RouteSpec } from './route';

// `verbose` keeps each error's schema, where `x-reason` is read.
// `multipleOfPrecision`: 12.34 is a multiple of 0.01 although 12.34 / 0.01 is not an integer in floating point.
const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, verbose: true, multipleOfPrecision: 9 });
addFormats(ajv);
// ajv-formats' email pattern takes `x<evil@evil.example>`'s look-alikes; the mailer must read
// exactly the address that was validated.
ajv.addFormat('email', isEmailAddress);
ajv.addKeyword({ keyword: 'example' });
// The spec reason a value outside its schema is refused with, instead of VALIDATION_FAILED alone
// (`amount` for a payment amount out of range): the document states the range, the answer keeps
// the spec's reason.
ajv.addKeyword({ keyword: 'x-reason', schemaType: 'string' });
// What a value that misses its pattern must be, in words: a regular expression tells a merchant nothing.
ajv.addKeyword({ keyword: 'x-invalid', schemaType: 'string' });

export function compile(schema: JsonSchema): ValidateFunction {
  return ajv.compile(schema);
}

/** `/lineItems/0/name` as `lineItems[0].name`. */
function readablePath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function fieldError(e: ErrorObject): FieldError | null {
  const path = readablePath(e.instancePath);
  switch (e.keyword) {
    case 'additionalProperties':
      return { path, message: `Unrecognized key "${String(e.params.additionalProperty)}"${path ? ` in ${path}` : ''}.` };
    case 'required':
      return { path: join(path, String(e.params.missingProperty)), message: 'Required.' };
    case 'anyOf':
    case 'oneOf':
    case 'if':
      // The branches' own errors say what is wrong.
      return null;
    case 'false schema':
      // A key that a condition on the others rules out (amountCents with lineItems).
      return { path, message: 'Not allowed together with the other fields sent.' };
    case 'type':
      return { path, message: `Must be ${e.params.type === 'integer' ? 'an integer' : `of type ${String(e.params.type)}`}.` };
    case 'enum':
      return { path, message: `Must be one of: ${(e.params.allowedValues as unknown[]).join(', ')}.` };
    case 'pattern':
      return { path, message: patternMessage(e) };
    default:
      if (e.keyword === 'format' && e.params.format === 'email') return { path, message: 'Must be one email address alone, such as name@example.com: no name, comment or second address.' };
      return { path, message: `${(e.message ?? 'is invalid').replace(/^must/, 'Must')}.` };
  }
}

function patternMessage(e: ErrorObject): string {
  const said = (e.parentSchema as JsonSchema | undefined)?.['x-invalid'];
  if (typeof said === 'string') return said;
  const id = /^\^([a-z]+)_\[0-9a-z\]\{\d+(?:,\d+)?\}\$$/.exec(String(e.params.pattern));
  if (id) return `Must be an id: ${id[1]}_ followed by lower-case letters and digits.`;
  return `Must match the pattern ${String(e.params.pattern)}.`;
}

export function fieldErrors(errors: ErrorObject[] | null | undefined): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const e of errors ?? []) {
    const f = fieldError(e);
    if (!f) continue;
    const id = `${f.path}\u0000${f.message}`;
    if (!seen.has(id)) {
      seen.add(id);
      out.push(f);
    }
  }
  return out;
}

/**
 * Strings holding U+0000, which PostgreSQL cannot store in text: refused up front like any invalid
 * value, rather than failing in the database as a server error.
 */
function nulFields(value: unknown, path = ''): FieldError[] {
  if (typeof value === 'string') return value.includes('\u0000') ? [{ path, message: 'Must not contain the character U+0000.' }] : [];
  if (Array.isArray(value)) return value.flatMap((item, i) => nulFields(item, `${path}[${i}]`));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => nulFields(item, join(path, key)));
  return [];
}

/** The `x-reason` shared by the schemas of every error, if they all have the same one. */
function reasonOf(errors: ErrorObject[]): Reason | undefined {
  const reasons = new Set(errors.map((e) => (e.parentSchema as JsonSchema | undefined)?.['x-reason']));
  const [reason] = reasons;
  return reasons.size === 1 && typeof reason === 'string' ? (reason as Reason) : undefined;
}

function propertyType(schema: JsonSchema, key: string): unknown {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  return properties?.[key]?.type;
}

/** Query values as the schema's types; anything not exactly of the type stays a string and fails. */
function typedQuery(schema: JsonSchema, query: Record<string, string | string[] | undefined>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query)) {
    const type = propertyType(schema, key);
    // Only integers JavaScript holds exactly: 9007199254740993 is refused, never rounded.
    if (typeof value === 'string' && type === 'integer' && /^-?(0|[1-9]\d*)$/.test(value) && Number.isSafeInteger(Number(value))) out[key] = Number(value);
    else if (typeof value === 'string' && type === 'boolean' && (value === 'true' || value === 'false')) out[key] = value === 'true';
    else out[key] = value;
  }
  return out;
}

export function validateInput(route: RouteSpec) {
  const validateBody = route.body ? compile(route.body) : null;
  const validateQuery = compile(route.query ?? { type: 'object', properties: {}, additionalProperties: false });
  const defaults = (route.query?.properties ?? {}) as Record<string, JsonSchema>;
  return async (ctx: ApiContext, next: Next) => {
    const query = typedQuery(route.query ?? {}, ctx.query);
    const queryNuls = nulFields(query);
    if (queryNuls.length > 0) throw new ApiError('VALIDATION_FAILED', 'A query parameter is not valid.', { fields: queryNuls });
    if (!validateQuery(query)) {
      throw new ApiError('VALIDATION_FAILED', 'A query parameter is not valid.', { fields: fieldErrors(validateQuery.errors) });
    }
    for (const [key, schema] of Object.entries(defaults)) {
      if (query[key] === undefined && schema.default !== undefined) query[key] = schema.default;
    }
    ctx.state.query = query;
    if (route.method !== 'GET') {
      const body = ctx.state.body;
      const bodyNuls = nulFields(body);
      if (bodyNuls.length > 0) throw new ApiError('VALIDATION_FAILED', 'The body is not valid.', { fields: bodyNuls });
      if (validateBody && !validateBody(body)) {
        const errors = validateBody.errors ?? [];
        throw new ApiError(reasonOf(errors) ?? 'VALIDATION_FAILED', 'The body is not valid.', { fields: fieldErrors(errors) });
      }
      if (!validateBody && (typeof body !== 'object' || body === null || Array.isArray(body) || Object.keys(body).length > 0)) {
        throw new ApiError('VALIDATION_FAILED', 'This endpoint takes no body.', { fields: [{ path: '', message: 'Send no body, or {}.' }] });
      }
    }
    return next();
  };
}
