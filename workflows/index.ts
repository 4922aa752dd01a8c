// Kasi's workflows, one file per business process, re-exported here for the bundle. They arrive
// with the business issues (checkout lifetime, subscriptions, invoices, webhook deliveries).
export { checkoutLifetime, paymentAttemptedSignal } from './checkout-lifetime';
export { cardCharge } from './card-charge';
export { cardExpiringNotices } from './card-expiring';
export { paymentRefund } from './refund';
export { webhookDelivery, webhookResend } from './webhook-delivery';
export { monthlyLimitReset } from './monthly-limit-reset';
export { testClockAdvance } from './test-clock-advance';
export { subscriptionLife } from './subscription';
export { invoiceCollection } from './invoice-collection';
