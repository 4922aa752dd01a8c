// The simulator's memory: checkout sessions, orders with their transactions and totals, tokens
// and stored-credential agreements, and how each is shown in the gateway's JSON (version 100).
import { randomBytes } from 'node:crypto';
import type { CardScheme } from '../../domain/card';
import { CURRENCY, decimalAmount } from '../../domain/money';
import { UNKNOWN_FOR_MS, type CscResult, type GatewayCode } from './cards';

export interface SimCard {
  scheme: CardScheme;
  /** Masked as the gateway shows it: the first six and last four digits. */
  masked: string;
  month: number;
  year: number;
}

export interface SimTransaction {
  id: string;
  type: 'PAYMENT' | 'REFUND' | 'VOID_PAYMENT';
  amountCents: number;
  source: 'INTERNET' | 'MERCHANT';
  gatewayCode: GatewayCode;
  csc: CscResult | null;
  /** An UNKNOWN payment: what it turns into, and from when it is read so. */
  decidesTo: { code: GatewayCode; at: number } | null;
  targetTransactionId: string | null;
  timeOfRecord: Date;
  /** The request that made it (canonical JSON): the same id with the same request answers it again. */
  request: string;
}

export interface SimOrder {
  id: string;
  merchantId: string;
  amountCents: number;
  card: SimCard;
  token: string | null;
  agreement: { id: string; type: string } | null;
  authenticationFailed: boolean;
  notificationUrl: string | null;
  creationTime: Date;
  transactions: SimTransaction[];
}

export interface SimSession {
  id: string;
  merchantId: string;
  orderId: string;
  amountCents: number;
  merchantName: string;
  returnUrl: string;
  locale: string;
  agreement: { id: string; type: string } | null;
  notificationUrl: string | null;
  successIndicator: string;
  /** After it (`interaction.timeout`), the page takes no card and no 3-D Secure answer. */
  expiresAt: Date | null;
  card: (SimCard & { csc: CscResult }) | null;
}

export interface SimToken {
  token: string;
  card: SimCard;
  deleted: boolean;
}

export interface SimState {
  sessions: Map<string, SimSession>;
  orders: Map<string, SimOrder>;
  tokens: Map<string, SimToken>;
  /** The token made for an order's card: tokenizing it again answers the same one. */
  tokenOfOrder: Map<string, string>;
  /** Stored-credential agreements by id: the order whose payment set each up. */
  agreements: Map<string, string>;
}

export function emptyState(): SimState {
  return { sessions: new Map(), orders: new Map(), tokens: new Map(), tokenOfOrder: new Map(), agreements: new Map() };
}

export function randomDigits(n: number): string {
  return [...randomBytes(n)].map((b) => String(b % 10)).join('');
}

/** A token as the gateway makes them: 16 digits starting with 9 (never a card number's prefix) that pass the Luhn check. */
export function newToken(): string {
  const body = `9${randomDigits(14)}`;
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return `${body}${(10 - (sum % 10)) % 10}`;
}

const APPROVED: ReadonlySet<GatewayCode> = new Set(['APPROVED']);

export function succeeded(t: SimTransaction): boolean {
  return APPROVED.has(t.gatewayCode);
}

/** Decides the unknown payments whose time has come (they are decided when read). Returns those decided now. */
export function decideDue(order: SimOrder, now: Date): SimTransaction[] {
  const decided: SimTransaction[] = [];
  for (const t of order.transactions) {
    if (t.decidesTo !== null && now.getTime() >= t.decidesTo.at) {
      t.gatewayCode = t.decidesTo.code;
      t.decidesTo = null;
      decided.push(t);
    }
  }
  return decided;
}

export function unknownUntil(now: Date): number {
  return now.getTime() + UNKNOWN_FOR_MS;
}

export function totals(order: SimOrder): { capturedCents: number; refundedCents: number } {
  const voided = new Set(order.transactions.filter((t) => t.type === 'VOID_PAYMENT' && succeeded(t)).map((t) => t.targetTransactionId));
  const sum = (type: SimTransaction['type']) =>
    order.transactions.filter((t) => t.type === type && succeeded(t) && !voided.has(t.id)).reduce((a, t) => a + t.amountCents, 0);
  return { capturedCents: sum('PAYMENT'), refundedCents: sum('REFUND') };
}

function orderStatus(order: SimOrder): string {
  if (order.authenticationFailed) return 'AUTHENTICATION_UNSUCCESSFUL';
  if (order.transactions.some((t) => t.type === 'VOID_PAYMENT' && succeeded(t))) return 'CANCELLED';
  const payment = order.transactions.filter((t) => t.type === 'PAYMENT').at(-1);
  if (payment === undefined || payment.gatewayCode === 'UNKNOWN') return 'INITIATED';
  if (!succeeded(payment)) return 'FAILED';
  const { capturedCents, refundedCents } = totals(order);
  if (refundedCents === 0) return 'CAPTURED';
  return refundedCents >= capturedCents ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
}

function resultOf(code: GatewayCode): string {
  if (code === 'APPROVED') return 'SUCCESS';
  return code === 'UNKNOWN' ? 'UNKNOWN' : 'FAILURE';
}

function cardJson(card: SimCard) {
  const brand = card.scheme === 'diners' ? 'DINERS_CLUB' : card.scheme.toUpperCase();
  return { brand, scheme: brand, number: card.masked, expiry: { month: String(card.month), year: String(card.year % 100).padStart(2, '0') } };
}

function sourceOfFunds(order: SimOrder) {
  return { type: 'CARD', provided: { card: cardJson(order.card) }, ...(order.token ? { token: order.token } : {}) };
}

function orderSummary(order: SimOrder) {
  const { capturedCents, refundedCents } = totals(order);
  return {
    id: order.id,
    merchant: order.merchantId,
    amount: Number(decimalAmount(order.amountCents)),
    currency: CURRENCY,
    status: orderStatus(order),
    creationTime: order.creationTime.toISOString(),
    totalAuthorizedAmount: Number(decimalAmount(capturedCents)),
    totalCapturedAmount: Number(decimalAmount(capturedCents)),
    totalRefundedAmount: Number(decimalAmount(refundedCents)),
  };
}

/** A transaction as its PUT and RETRIEVE_TRANSACTION answer it, and as a notification carries it. */
export function transactionJson(order: SimOrder, t: SimTransaction) {
  return {
    merchant: order.merchantId,
    result: resultOf(t.gatewayCode),
    order: orderSummary(order),
    response: { gatewayCode: t.gatewayCode, ...(t.csc ? { cardSecurityCode: { gatewayCode: t.csc } } : {}) },
    sourceOfFunds: sourceOfFunds(order),
    ...(order.agreement ? { agreement: order.agreement } : {}),
    timeOfRecord: t.timeOfRecord.toISOString(),
    transaction: {
      id: t.id,
      type: t.type,
      amount: Number(decimalAmount(t.amountCents)),
      currency: CURRENCY,
      source: t.source,
      ...(t.targetTransactionId ? { targetTransactionId: t.targetTransactionId } : {}),
    },
  };
}

/** RETRIEVE_ORDER's answer: the order, its totals, card, agreement and every transaction. */
export function orderJson(order: SimOrder) {
  const payment = order.transactions.filter((t) => t.type === 'PAYMENT').at(-1);
  return {
    ...orderSummary(order),
    result: order.authenticationFailed ? 'FAILURE' : payment ? resultOf(payment.gatewayCode) : 'PENDING',
    sourceOfFunds: sourceOfFunds(order),
    ...(order.agreement ? { agreement: order.agreement } : {}),
    transaction: order.transactions.map((t) => transactionJson(order, t)),
  };
}

export function tokenJson(token: SimToken) {
  const card = cardJson(token.card);
  return {
    result: 'SUCCESS',
    status: 'VALID',
    token: token.token,
    repositoryId: 'SIMULATOR',
    verificationStrategy: 'NONE',
    sourceOfFunds: { type: 'CARD', provided: { card: { ...card, expiry: `${card.expiry.month.padStart(2, '0')}${card.expiry.year}` } } },
  };
}
