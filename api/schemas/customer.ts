import { EMAIL_MAX_LENGTH } from '../../domain/email-address';
import { idPattern } from '../../domain/ids';
import { SRI_LANKAN_MOBILE_PATTERN } from '../../domain/phone';
import { listQueryProperties } from '../platform/pagination';
import { modeSchema, named, nullable, object, safeIntegerSchema, timestampSchema } from './json-schema';

export const emailSchema = {
  type: 'string',
  minLength: 3,
  maxLength: EMAIL_MAX_LENGTH,
  format: 'email',
  description: 'One address alone (name@example.com): no display name, comment, quoted part or second address.',
};
export const localeSchema = { type: 'string', enum: ['en', 'si', 'ta'] };

export const customerCreateSchema = object(
  {
    email: emailSchema,
    name: { type: 'string', minLength: 1, maxLength: 120 },
    phone: { type: 'string', maxLength: 24, 'x-invalid': 'Must be a Sri Lankan mobile number, such as 077 123 4567 or +94 77 123 4567.', pattern: SRI_LANKAN_MOBILE_PATTERN, description: 'Sri Lankan mobile number (077 123 4567, +94 77 123 4567); spaces and dashes removed; returned as +94...' },
    locale: { ...localeSchema, default: 'en' },
    testClockId: { type: 'string', pattern: idPattern('testClock'), description: 'A test clock of yours (test mode): the customer, its subscriptions, invoices and payments live in its time. A new customer only: an existing one keeps its own.' },
  },
  ['email'],
  { examples: [{ email: 'nimal@example.com', name: 'Nimal Perera', phone: '077 123 4567', locale: 'si' }] },
);

export const customerListQuerySchema = object({ ...listQueryProperties('customer'), email: { type: 'string', minLength: 3, maxLength: 254 } });

export const customerSchema = named('Customer', {
  type: 'object',
  required: ['object', 'id', 'mode', 'email', 'name', 'phone', 'locale', 'defaultCardId', 'creditBalanceCents', 'testClockId', 'createdAt'],
  properties: {
    object: { const: 'customer' },
    id: { type: 'string', pattern: idPattern('customer') },
    mode: modeSchema,
    email: { type: 'string' },
    name: nullable({ type: 'string' }),
    phone: nullable({ type: 'string' }),
    locale: localeSchema,
    defaultCardId: nullable({ type: 'string' }),
    creditBalanceCents: safeIntegerSchema,
    testClockId: nullable({ type: 'string', description: 'The test clock the customer lives on, or null (wall time).' }),
    createdAt: timestampSchema,
  },
});
