// Drives a payment link's page over plain HTTP (no browser), as a form-posting client would: the
// page for this browser's cookie and the form's token, then the button's post.
import assert from 'node:assert/strict';
import type { TestApi } from '../support/api';
import { absolute, postForm, type Step } from '../checkouts/hosted-flow';

/** The button pressed on the link's page at `linkUrl` (any language), as one browser. */
export async function pressContinue(linkUrl: string): Promise<Step> {
  const page = await fetch(linkUrl, { redirect: 'manual' });
  const cookie = page.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const token = /name="csrf" value="([^"]*)"/.exec(await page.text())?.[1];
  return postForm(linkUrl, token === undefined ? {} : { csrf: token }, cookie ? { cookie } : {});
}

/** A payer's own checkout from the link: the address of its page. */
export async function payerCheckout(api: TestApi, linkUrl: string): Promise<string> {
  const pressed = await pressContinue(linkUrl);
  assert.equal(pressed.status, 303, pressed.text);
  return absolute(api, pressed.location as string);
}
