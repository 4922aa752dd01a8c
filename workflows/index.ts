// Kasi's workflows, one file per business process, re-exported here for the bundle. They arrive
// with the business issues (checkout lifetime, subscriptions, invoices, webhook deliveries).
export { checkoutLifetime, paymentAttemptedSignal } from './checkout-lifetime';
export { webhookDelivery, webhookResend } from './webhook-delivery';
