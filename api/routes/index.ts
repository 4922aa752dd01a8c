// Every API route, in one table: the router mounts them and the OpenAPI document describes them.
import type { Config } from '../../config';
import type { RouteSpec } from '../platform/route';
import { accountRoutes } from './account';
import { checkoutRoutes } from './checkouts';
import { customerRoutes } from './customers';
import { openApiRoute } from './openapi';
import { paymentRoutes } from './payments';
import { paymentLinkRoutes } from './payment-links';
import { eventRoutes } from './events';
import { webhookEndpointRoutes } from './webhook-endpoints';

export function apiRoutes(config: Config): RouteSpec[] {
  const routes: RouteSpec[] = [...accountRoutes, ...customerRoutes, ...checkoutRoutes, ...paymentRoutes, ...paymentLinkRoutes, ...eventRoutes, ...webhookEndpointRoutes];
  routes.push(openApiRoute(() => routes, config.publicBaseUrl));
  return routes;
}
