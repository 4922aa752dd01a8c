// The invoice collection workflow's activities: thin adapters over services/invoices/.
import type { Processors } from '../processor';
import { chargeInvoice, type CollectionStep } from '../services/invoices/collect';
import { noticeInvoice, type InvoiceNotice } from '../services/invoices/notify';
import { serviceDeps, type ActivityDeps } from './deps';

export type { CollectionStep };

export function createInvoiceActivities(deps: ActivityDeps & { processors: Processors }) {
  const services = serviceDeps(deps, deps.processors);
  return {
    chargeInvoice: (invoiceId: string, attempt: number): Promise<CollectionStep> => chargeInvoice(services, invoiceId, attempt),
    noticeInvoice: (invoiceId: string, notice: InvoiceNotice): Promise<boolean> => noticeInvoice(services, invoiceId, notice),
  };
}

export type InvoiceActivities = ReturnType<typeof createInvoiceActivities>;
