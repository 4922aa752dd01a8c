// The invoice collection workflow's activities: thin adapters over services/invoices/, whose
// charges asked for at the same moment (the invoices of one renewal instant) are taken together
// (db/batched.ts).
import type { Processors } from '../processor';
import { chargeInvoices, type ChargeAttempt, type CollectionStep } from '../services/invoices/collect';
import { noticeInvoice, type InvoiceNotice } from '../services/invoices/notify';
import { batched } from '../db/batched';
import { serviceDeps, type ActivityDeps } from './deps';

export type { CollectionStep };

/** The most charges taken together. */
const CHARGES_AT_ONCE = 25;

export function createInvoiceActivities(deps: ActivityDeps & { processors: Processors }) {
  const services = serviceDeps(deps, deps.processors);
  const charge = batched((attempts: ChargeAttempt[]) => chargeInvoices(services, attempts), CHARGES_AT_ONCE);
  return {
    chargeInvoice: (invoiceId: string, attempt: number, leave?: ChargeAttempt['leave']): Promise<CollectionStep> => charge({ invoiceId, attempt, ...(leave && { leave }) }),
    noticeInvoice: (invoiceId: string, notice: InvoiceNotice): Promise<boolean> => noticeInvoice(services, invoiceId, notice),
  };
}

export type InvoiceActivities = ReturnType<typeof createInvoiceActivities>;
