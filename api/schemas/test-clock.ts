// Test clocks (DESIGN.md, "Test clocks"): bodies and the public object.
import { idPattern } from '../../domain/ids';
import { listQueryProperties } from '../platform/pagination';
import { named, nullable, object, timestampSchema } from './json-schema';

const frozenTime = { ...timestampSchema, description: 'ISO 8601.' };

export const testClockCreateSchema = object(
  { frozenTime: { ...frozenTime, description: 'The clock\'s time: within two years of now, past or future (else `billing_date_invalid`).' }, name: { type: 'string', maxLength: 120 } },
  ['frozenTime'],
  { examples: [{ frozenTime: '2027-01-31T04:30:00.000Z', name: 'Renewals across February' }] },
);

export const testClockAdvanceSchema = object(
  { frozenTime: { ...frozenTime, description: 'Later than the clock\'s time, and at most two years after it (else `billing_date_invalid`).' } },
  ['frozenTime'],
  { examples: [{ frozenTime: '2027-03-01T04:30:00.000Z' }] },
);

export const testClockListQuerySchema = object(listQueryProperties('testClock'));

export const testClockSchema = named('TestClock', {
  type: 'object',
  required: ['object', 'id', 'mode', 'name', 'frozenTime', 'status', 'createdAt'],
  properties: {
    object: { const: 'test_clock' },
    id: { type: 'string', pattern: idPattern('testClock') },
    mode: { const: 'test' },
    name: nullable({ type: 'string' }),
    frozenTime: timestampSchema,
    status: { type: 'string', enum: ['ready', 'advancing'], description: '`advancing` until everything due up to the advance\'s time has happened and settled.' },
    createdAt: timestampSchema,
    deleted: { const: true, description: 'Only in the answer to DELETE.' },
  },
});
