// The public Meter, meter event, meter event summary and billing alert objects (DESIGN.md
// "Adjustments and usage: the resources").
import type { BillingAlertRow } from '../db/billing-alerts';
import type { MeterRow } from '../db/meters';

export function meterView(row: MeterRow) {
  return {
    object: 'meter' as const,
    id: row.id,
    mode: row.mode,
    displayName: row.display_name,
    eventName: row.event_name,
    aggregation: row.aggregation,
    active: row.active,
    createdAt: row.created_at.toISOString(),
  };
}

export function meterEventView(event: { identifier: string; eventName: string; customerId: string; value: number; timestamp: Date }, duplicate: boolean) {
  return {
    object: 'meter_event' as const,
    identifier: event.identifier,
    eventName: event.eventName,
    customerId: event.customerId,
    value: event.value,
    timestamp: event.timestamp.toISOString(),
    duplicate,
  };
}

export function meterEventSummaryView(summary: { meterId: string; customerId: string; startTime: Date; endTime: Date; aggregatedValue: number }) {
  return {
    object: 'meter_event_summary' as const,
    meterId: summary.meterId,
    customerId: summary.customerId,
    startTime: summary.startTime.toISOString(),
    endTime: summary.endTime.toISOString(),
    aggregatedValue: summary.aggregatedValue,
  };
}

export function billingAlertView(row: BillingAlertRow) {
  return {
    object: 'billing_alert' as const,
    id: row.id,
    mode: row.mode,
    title: row.title,
    meterId: row.meter_id,
    threshold: Number(row.threshold),
    customerId: row.customer_id,
    active: row.active,
    createdAt: row.created_at.toISOString(),
  };
}
