// Tax rates' limits (DESIGN.md "Adjustments and usage: the resources"). A rate is never edited, so
// a subscription keeps a copy of its rates' terms (what an invoice's arithmetic takes,
// domain/invoice-arithmetic.ts TaxRateTerms), in the order given.
export const TAX_RATE_LIMITS = { displayNameMax: 50, descriptionMax: 200, percentageDecimals: 4, perSubscription: 5 } as const;
