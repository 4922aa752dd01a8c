// The fee on a successful payment, from the account plan's schedule: a share in basis points,
// rounded half up to the cent, plus a fixed part; never more than the amount itself.

export function paymentFee(amountCents: number, plan: { feeBasisPoints: number; feeFixedCents: number }): { feeCents: number; netCents: number } {
  const share = Math.floor((amountCents * plan.feeBasisPoints + 5_000) / 10_000);
  const feeCents = Math.min(amountCents, share + plan.feeFixedCents);
  return { feeCents, netCents: amountCents - feeCents };
}
