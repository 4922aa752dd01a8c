// DELETE /v1/billing/alerts/{id}: the alert is archived (`active` false) and triggers no more.
import { archiveBillingAlert, type BillingAlertRow } from '../../db/billing-alerts';
import type { ServiceContext } from '../context';

export function archiveAlert(ctx: ServiceContext, alert: BillingAlertRow): Promise<BillingAlertRow> {
  return archiveBillingAlert(ctx.db, alert.id, ctx.clock.now());
}
