// Drives the hosted pages over plain HTTP (no browser), as a form-posting client would: the pay
// action, the sandbox's card page and its 3-D Secure page, and the return to the service.
import assert from 'node:assert/strict';
import type { TestApi } from '../support/api';

export interface Step {
  status: number;
  location: string | null;
  text: string;
}

export async function get(url: string): Promise<Step> {
  const res = await fetch(url, { redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

export async function postForm(url: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Step> {
  const res = await fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

/**
 * The checkout's Pay form as a browser sends it: the page first, for this browser's cookie and the
 * form's token, then the post with both.
 */
export async function postPay(checkoutUrl: string, form: Record<string, string>): Promise<Step> {
  const page = await fetch(checkoutUrl, { redirect: 'manual' });
  const cookie = page.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const token = /name="csrf" value="([^"]*)"/.exec(await page.text())?.[1];
  return postForm(`${checkoutUrl}/pay`, token === undefined ? form : { ...form, csrf: token }, cookie ? { cookie } : {});
}

export function absolute(api: TestApi, location: string): string {
  return new URL(location, api.url).toString();
}

/** Pay action, card page and 3-D Secure; returns the URL the processor sends the customer back to. */
export async function payAtProcessor(
  api: TestApi,
  checkoutUrl: string,
  card: { number: string; expiry: string; cvv: string; threeDs?: 'pass' | 'fail' },
  details: Record<string, string> = {},
): Promise<string> {
  const pay = await postPay(checkoutUrl, details);
  assert.equal(pay.status, 303, pay.text);
  // Pay told the checkout's workflow, which asks the processor at once: let it hear "pending"
  // before the card is entered, as it does while a person types (under load it could come after).
  await api.workflows.settle();
  return enterCard(api, pay.location as string, card);
}

/** At the processor's page Pay sent the customer to (`session`, the sandbox's or a gateway's): the card and 3-D Secure; the URL it sends them back to. */
export async function enterCard(api: TestApi, session: string, card: { number: string; expiry: string; cvv: string; threeDs?: 'pass' | 'fail' }): Promise<string> {
  const sessionUrl = new URL(absolute(api, session));
  const cardStep = await postForm(`${sessionUrl.origin}${sessionUrl.pathname}/card${sessionUrl.search}`, { number: card.number, expiry: card.expiry, cvv: card.cvv });
  assert.equal(cardStep.status, 303, cardStep.text);
  // The processor's own site (the sandbox's pages are on the service's, a gateway's on its own).
  const threeDs = await postForm(new URL(cardStep.location as string, sessionUrl).toString(), { result: card.threeDs ?? 'pass' });
  assert.equal(threeDs.status, 303, threeDs.text);
  return new URL(threeDs.location as string, sessionUrl).toString();
}
