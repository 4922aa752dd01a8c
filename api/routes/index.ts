// Every API route, in one table: the router mounts them and the OpenAPI document describes them.
import type { Config } from '../../config';
import type { Logger } from 'pino';
import type { Processors } from '../../processor';
import type { RouteSpec } from '../platform/route';
import { accountRoutes } from './account';
import { couponRoutes } from './billing/coupons';
import { entitlementRoutes } from './billing/entitlements';
import { invoiceRoutes } from './billing/invoices';
import { balanceTransactionRoutes } from './billing/balance-transactions';
import { creditNoteRoutes } from './billing/credit-notes';
import { invoiceItemRoutes } from './billing/invoice-items';
import { meterRoutes } from './billing/meters';
import { priceRoutes } from './billing/prices';
import { subscriptionRoutes } from './billing/subscriptions';
import { productRoutes } from './billing/products';
import { testClockRoutes } from './billing/test-clocks';
import { cardRoutes } from './cards';
import { checkoutRoutes } from './checkouts';
import { customerRoutes } from './customers';
import { openApiRoute } from './openapi';
import { paymentRoutes } from './payments';
import { paymentLinkRoutes } from './payment-links';
import { refundRoutes } from './refunds';
import { upgradeRequestRoutes } from './upgrade-requests';
import { eventRoutes } from './events';
import { webhookEndpointRoutes } from './webhook-endpoints';

export function apiRoutes(config: Config, processors: Processors, log: Logger): RouteSpec[] {
  const routes: RouteSpec[] = [...accountRoutes, ...upgradeRequestRoutes, ...customerRoutes, ...productRoutes, ...entitlementRoutes, ...priceRoutes, ...couponRoutes, ...testClockRoutes, ...meterRoutes, ...invoiceRoutes(processors, log), ...invoiceItemRoutes, ...creditNoteRoutes, ...balanceTransactionRoutes, ...subscriptionRoutes, ...checkoutRoutes, ...paymentRoutes, ...refundRoutes, ...paymentLinkRoutes, ...cardRoutes(processors), ...eventRoutes, ...webhookEndpointRoutes];
  routes.push(openApiRoute(() => routes, config.publicBaseUrl));
  return routes;
}
