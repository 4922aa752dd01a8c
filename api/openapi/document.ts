// The OpenAPI 3.1 document, generated from the very route declarations and JSON Schemas the
// platform validates with, so it always describes the API as it runs.
import { ERROR_CODES, REASONS, type Reason } from '../../domain/errors';
import { isWrite, type RouteSpec } from '../platform/route';
import { errorSchema } from '../schemas/error';
import { countSchema, schemaName, type JsonSchema } from '../schemas/json-schema';

type Components = Record<string, JsonSchema>;

/** Deep copy with every named schema (other than `root` itself) replaced by a component reference. */
function withRefs(schema: JsonSchema, components: Components, root?: JsonSchema): JsonSchema {
  const name = schemaName(schema);
  if (name && schema !== root) {
    if (!(name in components)) {
      components[name] = {};
      components[name] = withRefs(schema, components, schema);
    }
    return { $ref: `#/components/schemas/${name}` };
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (Array.isArray(value)) {
      out[key] = value.map((v) => (v !== null && typeof v === 'object' ? withRefs(v as JsonSchema, components) : v));
    } else if (value !== null && typeof value === 'object') {
      out[key] = withRefs(value as JsonSchema, components);
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** The reasons a route can answer, by status: the platform's own plus the route's. */
export function routeReasons(route: RouteSpec): Map<number, Set<string>> {
  const reasons: string[] = [];
  if (route.auth !== 'public') reasons.push('missing_api_key', 'malformed_api_key', 'unknown_api_key', 'key_not_permitted');
  if (route.query || route.method === 'GET') reasons.push('VALIDATION_FAILED');
  if (route.params) reasons.push('NOT_FOUND', 'mode_mismatch');
  if (isWrite(route.method)) {
    reasons.push('json_required', 'invalid_json', 'body_too_large', 'VALIDATION_FAILED', 'merchant_not_live', 'merchant_unavailable');
  }
  if (route.idempotent) reasons.push('idempotency_key_missing', 'idempotency_key_reused', 'idempotency_key_in_progress');
  if (route.cors !== 'any') reasons.push('origin_not_allowed');
  reasons.push('RATE_LIMITED', 'INTERNAL', ...(route.errors ?? []));
  const byStatus = new Map<number, Set<string>>();
  for (const reason of reasons) {
    const entry = reason in REASONS ? REASONS[reason as Reason] : undefined;
    const status = entry
      ? ('status' in entry ? entry.status : ERROR_CODES[entry.code].status)
      : ERROR_CODES[reason as keyof typeof ERROR_CODES].status;
    if (!byStatus.has(status)) byStatus.set(status, new Set());
    byStatus.get(status)!.add(reason);
  }
  return byStatus;
}

const rateLimitHeaders = {
  'x-trace-id': { description: 'The request id (also `traceId` in error bodies).', schema: { type: 'string' } },
  'X-RateLimit-Limit': { description: 'Requests allowed per minute on this endpoint from your address.', schema: countSchema },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: countSchema },
  'X-RateLimit-Reset': { description: 'Seconds until the window resets.', schema: countSchema },
};

function parameters(route: RouteSpec): unknown[] {
  const out: unknown[] = [];
  for (const [name, pattern] of Object.entries(route.params ?? {})) {
    out.push({ name, in: 'path', required: true, schema: { type: 'string', pattern } });
  }
  const query = route.query;
  if (query) {
    const required = new Set((query.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries((query.properties ?? {}) as Record<string, JsonSchema>)) {
      const { description, ...rest } = schema;
      out.push({ name, in: 'query', required: required.has(name), ...(description ? { description } : {}), schema: rest });
    }
  }
  if (route.idempotent) {
    out.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: true,
      description: 'Kept 24 hours per mode. The same key and request replays the first answer with `Idempotent-Replayed: true`.',
      schema: { type: 'string', pattern: '^[A-Za-z0-9_\\-:.]{8,255}$' },
    });
  }
  return out;
}

function operation(route: RouteSpec, components: Components) {
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(route.responses)) {
    responses[status] = {
      description: response.description,
      headers: route.idempotent
        ? { ...rateLimitHeaders, 'Idempotent-Replayed': { description: '`true` on a replayed answer.', schema: { type: 'string', enum: ['true'] } } }
        : rateLimitHeaders,
      content: { 'application/json': { schema: withRefs(response.schema, components) } },
      ...(response.links ? { links: response.links } : {}),
    };
  }
  for (const [status, reasons] of [...routeReasons(route)].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: `Error: ${[...reasons].join(', ')}.`,
      ...(status === 429 ? { headers: { 'Retry-After': { description: 'Seconds to wait.', schema: countSchema } } } : {}),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    security: route.auth === 'public' ? [] : [{ apiKey: [] }],
    ...(route.auth === 'public'
      ? {}
      : {
          'x-key-kinds': route.auth.kinds ?? ['secret'],
          ...(route.auth.permission ? { 'x-permission': route.auth.permission } : {}),
        }),
    ...(route.idempotent ? { 'x-idempotent': true } : {}),
    parameters: parameters(route),
    ...(route.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: withRefs(route.body, components) } } } }
      : {}),
    responses,
  };
}

function buildDocument(routes: readonly RouteSpec[], baseUrl: string) {
  const components: Components = {};
  withRefs(errorSchema, components);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operation(route, components);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Kasi card payment and billing API',
      version: 'v1',
      description:
        'Card payments in Sri Lankan rupees (integer cents of LKR), hosted checkout, refunds, saved cards, events and signed webhooks, and subscription billing. Every answer is JSON; errors carry `{code, reason?, message, docUrl, traceId, fields?}`. No string, in a body or a query, may contain U+0000 (400 VALIDATION_FAILED).',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: baseUrl }],
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: '`Authorization: Bearer <API_KEY>`: sk_ (secret), pk_ (publishable: POST /v1/checkouts only) or ak_ (agent: MCP only), then test_ or live_. The mode comes from the key.',
        },
      },
    },
  };
}

const documents = new WeakMap<readonly RouteSpec[], ReturnType<typeof buildDocument>>();

/** The document for an app's route table, built once and shared by the JSON and the reference page. */
export function openApiDocument(routes: readonly RouteSpec[], baseUrl: string): ReturnType<typeof buildDocument> {
  let document = documents.get(routes);
  if (!document) {
    document = buildDocument(routes, baseUrl);
    documents.set(routes, document);
  }
  return document;
}
