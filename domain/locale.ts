// The languages of the hosted pages and of customers: English, Sinhala, Tamil.
export const LOCALES = ['en', 'si', 'ta'] as const;
export type Locale = (typeof LOCALES)[number];
