// A stateful local simulator of the Mastercard Gateway's REST API (version 100), for tests and
// for trying live mode without a bank (`npx kasi gateway-simulator`). It serves the subset the
// adapter (processor/mastercard-gateway) uses: INITIATE_CHECKOUT sessions and their hosted
// payment and 3-D Secure pages, RETRIEVE_ORDER and RETRIEVE_TRANSACTION, PAY with a token under
// a stored-credential agreement, REFUND, VOID, tokens made from an order's card and deleted, and
// notifications posted to the order's notificationUrl with the secret header. The test rules are
// the gateway's (./cards.ts). Switches a test flips make it slow, fail with 5xx, drop an answer
// after doing the work, or answer a payment UNKNOWN first. Memory only; 127.0.0.1 only.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { cardScheme, luhnValid, SCHEME_NAMES } from '../../domain/card';
import { systemClock, type Clock } from '../../domain/clock';
import { LOCALES, type Locale } from '../../domain/locale';
import { centsFromDecimal } from '../../domain/money';
import { escapeHtml, STYLESHEETS_PATH, stylesheetNamed } from '../../web/html';
import { TEST_CARDS } from '../sandbox/cards';
import { cardPage, page, threeDsPage } from '../sandbox/pages';
import { cscResult, expiryOutcome, paymentCode, type GatewayCode } from './cards';
import {
  decideDue,
  emptyState,
  newToken,
  orderJson,
  randomDigits,
  succeeded,
  tokenJson,
  totals,
  transactionJson,
  unknownUntil,
  type SimOrder,
  type SimState,
  type SimTransaction,
} from './state';

export const DEFAULT_API_PASSWORD = 'simulator';
export const NOTIFICATION_SECRET_HEADER = 'X-Notification-Secret';

/** What a test flips; each takes effect on the next request. */
export interface SimulatorSwitches {
  /** Every API request waits this long before it is done (a transaction is in progress meanwhile). */
  delayMs: number;
  /** The next this many API requests answer 500 (SERVER_FAILED) and do nothing. */
  fail5xx: number;
  /** The next this many API requests that change something do it, then close the connection unanswered. */
  dropAfterCommit: number;
  /** Every new payment answers UNKNOWN first, and its real outcome once read 10 s later. */
  unknownFirst: boolean;
}

export interface GatewaySimulatorOptions {
  /** 0: any free port. */
  port: number;
  apiPassword?: string;
  /** The merchant's notification secret (Merchant Administration's); none: notifications carry no secret header. */
  notificationSecret?: string | null;
  /** The simulator's time: UNKNOWN outcomes are decided by it (tests in virtual time move it). */
  clock?: Clock;
}

export interface RecordedRequest {
  method: string;
  path: string;
  body: string;
}

export interface GatewaySimulator {
  url: string;
  switches: SimulatorSwitches;
  /** The API requests received, in order (the latest 5,000 to 10,000; the hosted pages' are not listed). */
  requests: RecordedRequest[];
  state: SimState;
  close(): Promise<void>;
}

const API_PATH = /^\/api\/rest\/version\/(\d+)\/merchant\/([^/]+)(\/.*)$/;
const BODY_LIMIT = 64 * 1024;
const NOTIFICATION_TIMEOUT_MS = 5_000;
/** The request log keeps the latest requests only: a simulator left running must not grow without end. */
const REQUEST_LOG_LIMIT = 10_000;

class GatewayError extends Error {
  constructor(
    readonly status: number,
    readonly cause_: string,
    explanation: string,
    readonly field?: string,
  ) {
    super(explanation);
  }
}

const invalid = (explanation: string, field?: string) => new GatewayError(400, 'INVALID_REQUEST', explanation, field);

const SIMULATOR_TEXTS = {
  title: 'Gateway simulator: card payment',
  banner: 'Kasi\'s Mastercard Gateway simulator: test cards only, no money moves.',
  testCards:
    'Test cards: 5123 4500 0000 0008 (Mastercard), 4111 1111 1111 1111 (Visa), 3782 822463 10005 (American Express). Expiry 01/39 approves, 05/39 declines, 04/27 is an expired card, 08/28 times out, 01/37 is an acquirer system error, 02/37 an unspecified failure, 05/37 unknown at first and approved 10 seconds later. Security code 100 matches, 101 is not processed, 102 does not match (American Express: 1000, 1010, 1020).',
};

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT) {
        reject(invalid('The request is too large.'));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function localeOf(tag: string): Locale {
  const language = tag.slice(0, 2).toLowerCase();
  return (LOCALES as readonly string[]).includes(language) ? (language as Locale) : 'en';
}

/** Canonical JSON (keys sorted): the same request written in another key order is the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

function amountCents(value: unknown, field: string): number {
  try {
    const cents = centsFromDecimal(value as string);
    if (cents > 0) return cents;
  } catch {
    // answered below
  }
  throw invalid(`${field} must be a positive decimal amount with at most two decimals.`, field);
}

function requireString(value: unknown, field: string, max = 40): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > max) throw invalid(`${field} is required (1 to ${max} characters).`, field);
  return value;
}

type Json = Record<string, unknown>;

export async function startGatewaySimulator(options: GatewaySimulatorOptions): Promise<GatewaySimulator> {
  const apiPassword = options.apiPassword ?? DEFAULT_API_PASSWORD;
  const clock = options.clock ?? systemClock;
  const state = emptyState();
  const switches: SimulatorSwitches = { delayMs: 0, fail5xx: 0, dropAfterCommit: 0, unknownFirst: false };
  const requests: RecordedRequest[] = [];
  /** Orders with a transaction in progress: another one on them meanwhile is answered SERVER_BUSY. */
  const busy = new Set<string>();
  const notifying = new Set<Promise<void>>();

  const notify = (order: SimOrder, t: SimTransaction) => {
    if (order.notificationUrl === null) return;
    const sending = fetch(order.notificationUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(options.notificationSecret ? { [NOTIFICATION_SECRET_HEADER]: options.notificationSecret } : {}) },
      body: JSON.stringify(transactionJson(order, t)),
      signal: AbortSignal.timeout(NOTIFICATION_TIMEOUT_MS),
    }).then(
      (r) => void r.body?.cancel(),
      () => undefined, // The gateway does not promise delivery: the merchant reads the order anyway.
    );
    notifying.add(sending);
    void sending.then(() => notifying.delete(sending));
  };

  /** The order as it is now: unknown outcomes whose time has come are decided (and notified) on being read. */
  const readOrder = (orderId: string): SimOrder | undefined => {
    const order = state.orders.get(orderId);
    if (order !== undefined) for (const t of decideDue(order, clock.now())) notify(order, t);
    return order;
  };

  const newPayment = (id: string, amount: number, source: SimTransaction['source'], code: GatewayCode, csc: SimTransaction['csc'], request: string): SimTransaction => {
    const now = clock.now();
    const unknown = code === 'UNKNOWN' || switches.unknownFirst;
    return {
      id,
      type: 'PAYMENT',
      amountCents: amount,
      source,
      gatewayCode: unknown ? 'UNKNOWN' : code,
      csc,
      // 05/37 turns approved; with unknownFirst, the outcome the card would have had.
      decidesTo: unknown ? { code: code === 'UNKNOWN' ? 'APPROVED' : code, at: unknownUntil(now) } : null,
      targetTransactionId: null,
      timeOfRecord: now,
      request,
    };
  };

  // ---- the REST API ------------------------------------------------------------------------

  const initiateCheckout = (body: Json, merchantId: string): Json => {
    if (body.apiOperation !== 'INITIATE_CHECKOUT') throw invalid('apiOperation must be INITIATE_CHECKOUT.', 'apiOperation');
    const order = (body.order ?? {}) as Json;
    const interaction = (body.interaction ?? {}) as Json;
    const orderId = requireString(order.id, 'order.id');
    if (order.currency !== 'LKR') throw invalid('order.currency must be a currency this merchant takes (LKR).', 'order.currency');
    const returnUrl = requireString(interaction.returnUrl, 'interaction.returnUrl', 2048);
    const agreement = body.agreement as { id?: unknown; type?: unknown } | undefined;
    const session = {
      id: `SESSION0002${randomDigits(18)}`,
      merchantId,
      orderId,
      amountCents: amountCents(order.amount, 'order.amount'),
      merchantName: String(((interaction.merchant ?? {}) as Json).name ?? merchantId),
      returnUrl,
      locale: typeof interaction.locale === 'string' ? interaction.locale : 'en',
      agreement: agreement ? { id: requireString(agreement.id, 'agreement.id', 100), type: String(agreement.type ?? 'UNSCHEDULED') } : null,
      notificationUrl: typeof order.notificationUrl === 'string' ? order.notificationUrl : null,
      successIndicator: randomDigits(16),
      expiresAt: typeof interaction.timeout === 'number' && interaction.timeout > 0 ? new Date(clock.now().getTime() + interaction.timeout * 1000) : null,
      card: null,
    };
    state.sessions.set(session.id, session);
    return { checkoutMode: 'WEBSITE', merchant: merchantId, result: 'SUCCESS', session: { id: session.id, updateStatus: 'NO_UPDATE', version: randomDigits(10) }, successIndicator: session.successIndicator };
  };

  /** PAY with a token (merchant-initiated, under the agreement the customer consented to). */
  const payWithToken = (merchantId: string, orderId: string, transactionId: string, body: Json, request: string): { order: SimOrder; t: SimTransaction } => {
    const sourceOfFunds = (body.sourceOfFunds ?? {}) as Json;
    const token = state.tokens.get(requireString(sourceOfFunds.token, 'sourceOfFunds.token', 40));
    if (token === undefined || token.deleted) throw invalid('The token is not in the token repository.', 'sourceOfFunds.token');
    const agreementId = requireString(((body.agreement ?? {}) as Json).id, 'agreement.id', 100);
    const agreedOn = state.agreements.get(agreementId);
    const agreed = agreedOn !== undefined && readOrder(agreedOn)!.transactions.some((t) => t.type === 'PAYMENT' && succeeded(t));
    if (!agreed) throw invalid('No stored-credential agreement with this id was set up by an approved payment.', 'agreement.id');
    const amount = amountCents(((body.order ?? {}) as Json).amount, 'order.amount');
    if (state.orders.has(orderId)) throw invalid('The order already has a payment.', 'order.id');
    const now = clock.now();
    const order: SimOrder = {
      id: orderId,
      merchantId,
      amountCents: amount,
      card: token.card,
      token: token.token,
      agreement: { id: agreementId, type: String(((body.agreement ?? {}) as Json).type ?? 'UNSCHEDULED') },
      authenticationFailed: false,
      notificationUrl: typeof ((body.order ?? {}) as Json).notificationUrl === 'string' ? (((body.order as Json).notificationUrl) as string) : null,
      creationTime: now,
      transactions: [],
    };
    const t = newPayment(transactionId, amount, 'MERCHANT', expiryOutcome(token.card.month, token.card.year, now), null, request);
    order.transactions.push(t);
    state.orders.set(orderId, order);
    return { order, t };
  };

  const refund = (order: SimOrder, transactionId: string, body: Json, request: string): SimTransaction => {
    const amount = amountCents(((body.transaction ?? {}) as Json).amount, 'transaction.amount');
    const { capturedCents, refundedCents } = totals(order);
    if (refundedCents + amount > capturedCents) {
      throw invalid(`The refund amount exceeds the amount captured and not yet refunded (${((capturedCents - refundedCents) / 100).toFixed(2)}).`, 'transaction.amount');
    }
    return { id: transactionId, type: 'REFUND', amountCents: amount, source: 'INTERNET', gatewayCode: 'APPROVED', csc: null, decidesTo: null, targetTransactionId: null, timeOfRecord: clock.now(), request };
  };

  const voidPayment = (order: SimOrder, transactionId: string, body: Json, request: string): SimTransaction => {
    const target = requireString(((body.transaction ?? {}) as Json).targetTransactionId, 'transaction.targetTransactionId');
    const payment = order.transactions.find((t) => t.id === target && t.type === 'PAYMENT' && succeeded(t));
    if (payment === undefined) throw invalid('No approved payment with this transaction id on the order.', 'transaction.targetTransactionId');
    if (order.transactions.some((t) => t.type === 'REFUND' && succeeded(t))) throw invalid('A payment with refunds cannot be voided.', 'transaction.targetTransactionId');
    return { id: transactionId, type: 'VOID_PAYMENT', amountCents: payment.amountCents, source: 'INTERNET', gatewayCode: 'APPROVED', csc: null, decidesTo: null, targetTransactionId: target, timeOfRecord: clock.now(), request };
  };

  /** PUT …/order/{orderId}/transaction/{transactionId}: the same id with the same request is answered again, never done twice. */
  const putTransaction = (orderId: string, transactionId: string, body: Json, merchantId: string): Json => {
    requireString(orderId, 'order.id');
    requireString(transactionId, 'transaction.id');
    const request = canonical(body);
    const existing = readOrder(orderId)?.transactions.find((t) => t.id === transactionId);
    if (existing !== undefined) {
      if (existing.request !== request) throw invalid('A transaction with this id exists on the order, made by a different request.', 'transaction.id');
      return transactionJson(state.orders.get(orderId)!, existing);
    }
    if (body.apiOperation === 'PAY') {
      const { order, t } = payWithToken(merchantId, orderId, transactionId, body, request);
      notify(order, t);
      return transactionJson(order, t);
    }
    const order = state.orders.get(orderId);
    if (order === undefined) throw invalid('Unable to find the order.', 'order.id');
    let t: SimTransaction;
    if (body.apiOperation === 'REFUND') t = refund(order, transactionId, body, request);
    else if (body.apiOperation === 'VOID') t = voidPayment(order, transactionId, body, request);
    else throw invalid('apiOperation must be PAY, REFUND or VOID.', 'apiOperation');
    order.transactions.push(t);
    notify(order, t);
    return transactionJson(order, t);
  };

  const createToken = (body: Json): Json => {
    const orderId = requireString(body.referenceOrderId, 'referenceOrderId');
    const order = state.orders.get(orderId);
    if (order === undefined || !order.transactions.some((t) => t.type === 'PAYMENT' && succeeded(t))) {
      throw invalid('referenceOrderId must name an order with an approved card payment.', 'referenceOrderId');
    }
    let token = state.tokenOfOrder.get(orderId);
    if (token === undefined) {
      token = newToken();
      state.tokens.set(token, { token, card: order.card, deleted: false });
      state.tokenOfOrder.set(orderId, token);
    }
    return tokenJson(state.tokens.get(token)!);
  };

  const deleteToken = (token: string): Json => {
    const stored = state.tokens.get(token);
    if (stored === undefined || stored.deleted) throw invalid('The token is not in the token repository.', 'token');
    stored.deleted = true;
    return { result: 'SUCCESS' };
  };

  /** Routes an API request; `changes` tells the drop switch which requests do work. */
  const api = async (method: string, rest: string, body: Json, merchantId: string): Promise<{ status: number; json: Json; changes: boolean }> => {
    const order = /^\/order\/([^/]+)$/.exec(rest);
    const transaction = /^\/order\/([^/]+)\/transaction\/([^/]+)$/.exec(rest);
    const token = /^\/token\/([^/]+)$/.exec(rest);
    if (method === 'POST' && rest === '/session') return { status: 201, json: initiateCheckout(body, merchantId), changes: true };
    if (method === 'GET' && order) {
      const found = readOrder(decodeURIComponent(order[1]!));
      if (found === undefined) throw invalid('Unable to find the order.', 'order.id');
      return { status: 200, json: orderJson(found), changes: false };
    }
    if (method === 'GET' && transaction) {
      const found = readOrder(decodeURIComponent(transaction[1]!));
      const t = found?.transactions.find((x) => x.id === decodeURIComponent(transaction[2]!));
      if (found === undefined || t === undefined) throw invalid('Unable to find the transaction.', 'transaction.id');
      return { status: 200, json: transactionJson(found, t), changes: false };
    }
    if (method === 'PUT' && transaction) {
      const orderId = decodeURIComponent(transaction[1]!);
      // The gateway takes one transaction on an order at a time.
      if (busy.has(orderId)) throw new GatewayError(503, 'SERVER_BUSY', 'Another transaction on this order is in progress; submit the request again later.');
      busy.add(orderId);
      try {
        if (switches.delayMs > 0) await sleep(switches.delayMs);
        return { status: 201, json: putTransaction(orderId, decodeURIComponent(transaction[2]!), body, merchantId), changes: true };
      } finally {
        busy.delete(orderId);
      }
    }
    if (method === 'POST' && rest === '/token') return { status: 201, json: createToken(body), changes: true };
    if (method === 'DELETE' && token) return { status: 200, json: deleteToken(decodeURIComponent(token[1]!)), changes: true };
    throw new GatewayError(404, 'INVALID_REQUEST', `No operation ${method} ${rest} in this simulator.`);
  };

  const answerJson = (res: ServerResponse, status: number, json: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8' });
    res.end(JSON.stringify(json));
  };

  const handleApi = async (req: IncomingMessage, res: ServerResponse, match: RegExpExecArray) => {
    const merchantId = decodeURIComponent(match[2]!);
    const rest = match[3]!;
    const raw = await readBody(req);
    if (requests.length >= REQUEST_LOG_LIMIT) requests.splice(0, REQUEST_LOG_LIMIT / 2);
    requests.push({ method: req.method ?? 'GET', path: rest, body: raw });
    const [user, ...password] = Buffer.from((req.headers.authorization ?? '').replace(/^Basic\s+/i, ''), 'base64').toString('utf8').split(':');
    if (user !== `merchant.${merchantId}` || password.join(':') !== apiPassword) {
      return answerJson(res, 401, { result: 'ERROR', error: { cause: 'REQUEST_REJECTED', explanation: 'Invalid credentials.' } });
    }
    if (switches.fail5xx > 0) {
      switches.fail5xx--;
      return answerJson(res, 500, { result: 'ERROR', error: { cause: 'SERVER_FAILED', explanation: 'The simulator was told to fail this request.' } });
    }
    let body: Json = {};
    try {
      body = raw === '' ? {} : (JSON.parse(raw) as Json);
    } catch {
      return answerJson(res, 400, { result: 'ERROR', error: { cause: 'INVALID_REQUEST', explanation: 'The body is not JSON.' } });
    }
    try {
      if (switches.delayMs > 0 && req.method !== 'PUT') await sleep(switches.delayMs);
      const { status, json, changes } = await api(req.method ?? 'GET', rest, body, merchantId);
      if (changes && switches.dropAfterCommit > 0) {
        switches.dropAfterCommit--;
        req.socket.destroy();
        return;
      }
      answerJson(res, status, json);
    } catch (err) {
      if (!(err instanceof GatewayError)) throw err;
      answerJson(res, err.status, { result: 'ERROR', error: { cause: err.cause_, explanation: err.message, ...(err.field ? { field: err.field, validationType: 'INVALID' } : {}) } });
    }
  };

  // ---- the hosted payment page and its 3-D Secure step ---------------------------------------

  const html = (res: ServerResponse, status: number, body: string) => {
    res.writeHead(status, { 'content-type': 'text/html;charset=UTF-8', 'cache-control': 'no-store' });
    res.end(body);
  };
  const redirect = (res: ServerResponse, location: string) => {
    res.writeHead(303, { location });
    res.end();
  };
  const returnTo = (session: { returnUrl: string; successIndicator: string }) => {
    const url = new URL(session.returnUrl);
    url.searchParams.set('resultIndicator', session.successIndicator);
    return url.toString();
  };

  const handlePage = async (req: IncomingMessage, res: ServerResponse, sessionId: string, step: string) => {
    const session = state.sessions.get(sessionId);
    if (session === undefined) return html(res, 404, page('en', 'Not found', '<h1>Not found</h1>'));
    const locale = localeOf(session.locale);
    const paid = state.orders.get(session.orderId);
    // An order already decided (paid on another session, or this one): back to the merchant.
    if (paid !== undefined && (paid.authenticationFailed || paid.transactions.some((t) => t.type === 'PAYMENT'))) return redirect(res, returnTo(session));
    if (session.expiresAt !== null && clock.now().getTime() >= session.expiresAt.getTime()) {
      return html(res, 410, page(locale, 'Session expired', `<h1>This payment session has expired</h1><p><a href="${escapeHtml(session.returnUrl)}">Return to the shop</a></p>`));
    }
    const base = `/checkout/pay/${encodeURIComponent(session.id)}`;
    const common = { locale, merchantName: session.merchantName, amountCents: session.amountCents, texts: SIMULATOR_TEXTS };
    if (req.method === 'GET' && step === '') {
      if (session.card !== null) return redirect(res, `${base}/3ds`);
      return html(res, 200, cardPage({ ...common, action: `${base}/card` }));
    }
    if (req.method === 'POST' && step === '/card') {
      const form = new URLSearchParams(await readBody(req));
      const number = (form.get('number') ?? '').replace(/[\s-]/g, '');
      const expiry = /^\s*(0[1-9]|1[0-2])\s*\/\s*(\d{2})\s*$/.exec(form.get('expiry') ?? '');
      const scheme = luhnValid(number) ? cardScheme(number) : null;
      const csc = scheme === null ? null : cscResult(scheme, form.get('cvv') ?? '');
      let error: string | undefined;
      if (scheme === null) error = 'Enter a valid card number.';
      else if (!TEST_CARDS.some((c) => c.number === number)) error = 'The simulator accepts only its test cards.';
      else if (!expiry) error = 'Enter the expiry as MM/YY.';
      else if (csc === null) error = 'Enter a test security code: 100, 101 or 102 (American Express: 1000, 1010 or 1020).';
      if (error !== undefined || scheme === null || !expiry || csc === null) return html(res, 400, cardPage({ ...common, action: `${base}/card`, error }));
      session.card = { scheme, masked: `${number.slice(0, 6)}${'x'.repeat(number.length - 10)}${number.slice(-4)}`, month: Number(expiry[1]), year: 2000 + Number(expiry[2]), csc };
      return redirect(res, `${base}/3ds`);
    }
    if (session.card === null) return redirect(res, base);
    const card = session.card;
    if (req.method === 'GET' && step === '/3ds') {
      return html(res, 200, threeDsPage({ ...common, action: `${base}/3ds`, card: `${SCHEME_NAMES[card.scheme]} •••• ${card.masked.slice(-4)}` }));
    }
    if (req.method === 'POST' && step === '/3ds') {
      const passed = new URLSearchParams(await readBody(req)).get('result') === 'pass';
      const now = clock.now();
      const order: SimOrder = {
        id: session.orderId,
        merchantId: session.merchantId,
        amountCents: session.amountCents,
        card: { scheme: card.scheme, masked: card.masked, month: card.month, year: card.year },
        token: null,
        agreement: session.agreement,
        authenticationFailed: !passed,
        notificationUrl: session.notificationUrl,
        creationTime: now,
        transactions: [],
      };
      if (passed) {
        const code = paymentCode(expiryOutcome(card.month, card.year, now), card.csc);
        order.transactions.push(newPayment(`1`, session.amountCents, 'INTERNET', code, card.csc, ''));
      }
      state.orders.set(order.id, order);
      if (passed && session.agreement !== null) state.agreements.set(session.agreement.id, order.id);
      const made = order.transactions[0];
      if (made !== undefined) notify(order, made);
      return redirect(res, returnTo(session));
    }
    return html(res, 404, page(locale, 'Not found', '<h1>Not found</h1>'));
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const apiMatch = API_PATH.exec(url.pathname);
    const pageMatch = /^\/checkout\/pay\/([^/]+)(\/card|\/3ds)?$/.exec(url.pathname);
    const css = url.pathname.startsWith(`${STYLESHEETS_PATH}/`) ? stylesheetNamed(url.pathname.slice(STYLESHEETS_PATH.length + 1)) : undefined;
    const handled = apiMatch
      ? handleApi(req, res, apiMatch)
      : pageMatch
        ? handlePage(req, res, decodeURIComponent(pageMatch[1]!), pageMatch[2] ?? '')
        : Promise.resolve(css === undefined ? html(res, 404, page('en', 'Not found', '<h1>Not found</h1>')) : (res.writeHead(200, { 'content-type': 'text/css' }), res.end(css)));
    handled.catch((err: unknown) => {
      if (res.headersSent) return res.destroy();
      answerJson(res, 500, { result: 'ERROR', error: { cause: 'SERVER_FAILED', explanation: err instanceof Error ? err.message : String(err) } });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    switches,
    requests,
    state,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([...notifying]);
    },
  };
}
