// Upgrade requests: a merchant asks for a plan with a higher monthly limit; an operator decides.
// See docs/reference/account.md.
import { idPattern } from '../../domain/ids';
import { listQueryProperties } from '../platform/pagination';
import { named, nullable, object, timestampSchema } from './json-schema';

const statusSchema = { type: 'string', enum: ['pending', 'approved', 'declined'] };

export const upgradeRequestCreateSchema = object(
  {
    plan: { type: 'string', minLength: 1, maxLength: 64, description: 'A plan of the catalogue with a higher monthly limit than the account\'s.' },
    message: { type: 'string', minLength: 1, maxLength: 500, description: 'For the operator who decides: what the business expects to take, and why.' },
  },
  ['plan'],
  { examples: [{ plan: 'growth', message: 'Avurudu season: we expect Rs. 1,500,000 in April.' }] },
);

export const upgradeRequestListQuerySchema = object({
  ...listQueryProperties('upgradeRequest'),
  status: { ...statusSchema, description: 'Only requests in this status.' },
});

export const upgradeRequestSchema = named('UpgradeRequest', {
  type: 'object',
  description: 'About the account itself, the same in both modes: it has no `mode`, and keys of either mode see it.',
  required: ['object', 'id', 'plan', 'fromPlan', 'status', 'message', 'declineReason', 'createdAt', 'decidedAt'],
  properties: {
    object: { const: 'upgrade_request' },
    id: { type: 'string', pattern: idPattern('upgradeRequest') },
    plan: { type: 'string', description: 'The plan asked for.' },
    fromPlan: { type: 'string', description: 'The account\'s plan when it asked.' },
    status: { ...statusSchema, description: '`pending` until an operator decides; `approved` moved the account to `plan`.' },
    message: nullable({ type: 'string' }),
    declineReason: nullable({ type: 'string', description: 'What the operator said when declining, if anything.' }),
    createdAt: timestampSchema,
    decidedAt: nullable(timestampSchema),
  },
});
