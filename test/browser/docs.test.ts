// The served docs in a browser: the contents page, a search through its form, a link followed to
// the page found, back to the contents from the API reference, all under the pages' Content-Security-Policy with nothing refused
// (the stylesheet applies). Skipped, saying so, where no chromium is installed.
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startApi, type TestApi } from '../support/api';
import { launchChromium } from '../support/chromium';

describe('the docs in a browser', function () {
  this.timeout(60_000);
  let api: TestApi;
  let browser: Browser;

  before(async function () {
    browser = await launchChromium(this);
    api = await startApi();
  });
  after(async () => {
    await browser?.close();
    await api?.close();
  });

  it('opens /docs, searches a title, follows the result to its page; the console has no CSP violation', async () => {
    const page: Page = await browser.newPage();
    const messages: string[] = [];
    page.on('console', (message) => messages.push(`${message.type()}: ${message.text()}`));
    page.on('pageerror', (error) => messages.push(`pageerror: ${error.message}`));
    await page.goto(`${api.url}/docs`);
    // The first page the contents list after the two made from code (the guides come first).
    const first = page.locator('main section li a').filter({ hasNotText: /^API / }).first();
    const [title, href] = [(await first.textContent())!, (await first.getAttribute('href'))!];
    const word = title.split(/\W+/).find((w) => w.length >= 4)!;
    await page.getByRole('searchbox', { name: 'Search the docs' }).fill(word);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(`${api.url}/docs?q=${word}`);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Search the docs');
    await page.getByRole('main').locator('#titles').getByRole('link', { name: title, exact: true }).click();
    await page.waitForURL(`${api.url}${href}`);
    assert.equal((await page.getByRole('heading', { level: 1 }).textContent())?.trim(), title);
    // The stylesheet loaded: the navigation bar is laid out by it.
    assert.equal(await page.locator('nav').evaluate((nav) => (globalThis as any).getComputedStyle(nav).display), 'flex');
    // The API reference: its endpoint list leads to an operation, its top bar back to the contents.
    await page.goto(`${api.url}/docs/api`);
    await page.locator('ul.endpoints a').first().click();
    assert.match(page.url(), /\/docs\/api#[A-Za-z]+$/);
    await page.getByRole('navigation').getByRole('link', { name: 'Kasi docs' }).click();
    await page.waitForURL(`${api.url}/docs`);
    assert.deepEqual(messages.filter((line) => /Content.Security.Policy|Refused/i.test(line)), []);
    await page.close();
  });
});
