// The card a merchant names for a subscription (`cardId` on create and update): one of this
// account and mode (else 404), of this customer and still chargeable (else card_not_reusable).
import type { CustomerRow } from '../../db/customers';
import { findSavedCard } from '../../db/saved-cards';
import { ApiError } from '../../domain/errors';
import type { TransactionContext } from '../context';

export async function checkUsableCard(ctx: TransactionContext, customer: Pick<CustomerRow, 'account_id' | 'mode' | 'email'>, cardId: string): Promise<void> {
  const card = await findSavedCard(ctx.db, cardId);
  if (card === undefined || card.account_id !== customer.account_id || card.mode !== customer.mode) throw new ApiError('NOT_FOUND', `No card with id ${cardId}.`);
  if (card.customer_email.toLowerCase() !== customer.email.toLowerCase()) throw new ApiError('card_not_reusable', `The card ${cardId} is not this customer's.`);
  if (card.retired_at !== null || card.processor_token === null) throw new ApiError('card_not_reusable', `The card ${cardId} was deleted: it cannot be charged.`);
}
