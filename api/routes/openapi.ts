// GET /v1/openapi.json: no key, any origin.
import { openApiDocument } from '../openapi/document';
import { defineRoute, type RouteSpec } from '../platform/route';

export function openApiRoute(allRoutes: () => readonly RouteSpec[], baseUrl: string): RouteSpec {
  return defineRoute<unknown, unknown>({
    method: 'GET',
    path: '/v1/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'This document: the API as it runs, in OpenAPI 3.1',
    tag: 'Meta',
    auth: 'public',
    cors: 'any',
    responses: { 200: { description: 'The OpenAPI 3.1 document.', schema: { type: 'object' } } },
    async handler() {
      return { status: 200, body: openApiDocument(allRoutes(), baseUrl) };
    },
  });
}
