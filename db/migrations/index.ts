// The migrations, in order. A static list (rather than a folder scan) so they load the same way
// under tsx, mocha and a bundler; add each new migration at the end.
import type { Knex } from 'knex';
import * as platform from './001-platform';
import * as events from './002-events';
import * as checkouts from './003-checkouts';
import * as webhooks from './004-webhooks';
import * as paymentIndexes from './005-payment-indexes';
import * as keyChanges from './006-key-changes';
import * as installation from './007-installation';
import * as refunds from './008-refunds';
import * as savedCards from './009-saved-cards';
import * as paymentLinks from './010-payment-links';
import * as accountLimits from './011-account-limits';
import * as catalog from './012-catalog';
import * as emails from './013-emails';
import * as testClocks from './014-test-clocks';
import * as monthlyUsageCounters from './015-monthly-usage-counters';
import * as invoices from './016-invoices';
import * as subscriptions from './017-subscriptions';
import * as invoiceCollection from './018-invoice-collection';
import * as subscriptionLife from './019-subscription-life';
import * as invoicePayer from './020-invoice-payer';
import * as carriedAmounts from './021-carried-amounts';
import * as namedCustomers from './022-named-customers';
import * as subscriptionChanges from './023-subscription-changes';
import * as pauseAndAnchors from './025-pause-and-anchors';
import * as invoiceAdjustments from './026-invoice-adjustments';
import * as cardProcessors from './027-card-processors';
import * as couponsAndTaxRates from './028-coupons-and-tax-rates';
import * as meters from './029-meters';
import * as entitlements from './030-entitlements';
import * as invoiceItemsAndCredit from './032-invoice-items-and-credit';
import * as pendingInvoiceItems from './033-pending-invoice-items';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

const MIGRATIONS: [string, Migration][] = [
  ['001-platform', platform],
  ['002-events', events],
  ['003-checkouts', checkouts],
  ['004-webhooks', webhooks],
  ['005-payment-indexes', paymentIndexes],
  ['006-key-changes', keyChanges],
  ['007-installation', installation],
  ['008-refunds', refunds],
  ['009-saved-cards', savedCards],
  ['010-payment-links', paymentLinks],
  ['011-account-limits', accountLimits],
  ['012-catalog', catalog],
  ['013-emails', emails],
  ['014-test-clocks', testClocks],
  ['015-monthly-usage-counters', monthlyUsageCounters],
  ['016-invoices', invoices],
  ['017-subscriptions', subscriptions],
  ['018-invoice-collection', invoiceCollection],
  ['019-subscription-life', subscriptionLife],
  ['020-invoice-payer', invoicePayer],
  ['021-carried-amounts', carriedAmounts],
  ['022-named-customers', namedCustomers],
  ['023-subscription-changes', subscriptionChanges],
  ['025-pause-and-anchors', pauseAndAnchors],
  ['026-invoice-adjustments', invoiceAdjustments],
  ['027-card-processors', cardProcessors],
  ['028-coupons-and-tax-rates', couponsAndTaxRates],
  ['029-meters', meters],
  ['030-entitlements', entitlements],
  ['032-invoice-items-and-credit', invoiceItemsAndCredit],
  ['033-pending-invoice-items', pendingInvoiceItems],
];

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: () => Promise.resolve(MIGRATIONS.map(([name]) => name)),
  getMigrationName: (name) => name,
  getMigration: (name) => {
    const found = MIGRATIONS.find(([n]) => n === name);
    if (!found) throw new Error(`unknown migration ${name}`);
    return Promise.resolve(found[1]);
  },
};
