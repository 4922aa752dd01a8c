// Credit notes: POST /v1/credit_notes, GET /v1/credit_notes (invoiceId, customerId),
// GET /v1/credit_notes/{id}. See docs/reference/credit.md.
import { creditNotesQuery, type CreditNoteFilters, type CreditNoteRow } from '../../../db/credit-notes';
import { createCreditNote, type CreditNoteInput } from '../../../services/credit-notes/create';
import { transactional } from '../../../services/run';
import { creditNoteView } from '../../../views/credit';
import { type ListQuery } from '../../platform/pagination';
import { getRoute, listRoute } from '../../platform/resource-routes';
import { defineRoute } from '../../platform/route';
import { creditNoteCreateSchema, creditNoteListQuerySchema, creditNoteSchema } from '../../schemas/credit';

const TAG = 'Credit notes';
const noteLinks = { getCreditNote: { operationId: 'getCreditNote', parameters: { id: '$response.body#/id' } } };

export const creditNoteRoutes = [
  defineRoute<CreditNoteInput, unknown>({
    method: 'POST',
    path: '/v1/credit_notes',
    operationId: 'createCreditNote',
    summary: 'Issue a credit note on an invoice',
    description:
      'On an open invoice it lowers `amountDueCents` (an invoice left owing 0 is paid; 1 to 999 cents is carried onto the customer\'s next invoice); credit the customer had applied to it goes back to their balance. On a paid invoice it refunds `refundCents` to the card that paid it (default: all of it), up to what that payment can still refund, and adds the rest and `creditCents` to the customer\'s credit balance. All credit notes of an invoice together are at most its total. `credit_note.created`.',
    tag: TAG,
    auth: { permission: 'billing:write' },
    idempotent: true,
    body: creditNoteCreateSchema,
    responses: { 201: { description: 'The credit note, numbered.', schema: creditNoteSchema, links: noteLinks } },
    // 404 also without a reason: no such invoice.
    errors: ['mode_mismatch', 'credit_note_amount', 'invoice_not_open', 'invoice_payment_pending', 'amount'],
    async handler(input) {
      return { status: 201, body: creditNoteView(await createCreditNote(transactional(input), input.caller, input.body)) };
    },
  }),
  listRoute<CreditNoteRow, ListQuery & CreditNoteFilters>({
    path: '/v1/credit_notes',
    operationId: 'listCreditNotes',
    summary: 'List credit notes, newest first',
    description: 'All credit notes, or an invoice\'s, or a customer\'s.',
    tag: TAG,
    auth: { permission: 'billing:read' },
    kind: 'creditNote',
    query: creditNoteListQuerySchema,
    item: creditNoteSchema,
    answer: 'A page of credit notes.',
    rows: ({ db, scope, query }) => creditNotesQuery(db, scope, query),
    view: creditNoteView,
  }),
  getRoute<CreditNoteRow>({
    path: '/v1/credit_notes/{id}',
    operationId: 'getCreditNote',
    summary: 'Get a credit note',
    tag: TAG,
    auth: { permission: 'billing:read' },
    kind: 'creditNote',
    table: 'credit_notes',
    noun: 'credit note',
    item: creditNoteSchema,
    answer: 'The credit note.',
    view: creditNoteView,
  }),
];
