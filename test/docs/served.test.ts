// The docs as the service serves them at /docs, from the Markdown under docs/: every page at its
// path with its title, a contents page from which every link (and its anchor) leads somewhere, a
// search of titles, headings and sections, the guides' example files as plain text, the pages made
// from code (API reference, errors) under the same top bar, raw HTML escaped, the pages' security
// headers, a readable 404; and `npm start` saying where the docs are and how to make a merchant.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { headingSlug, renderMarkdown, servedPath } from '../../api/docs/docs-pages';
import { escapeHtml } from '../../web/html';
import { startApi, TEST_SECRET_KEY, type TestApi } from '../support/api';
import { Child } from '../support/child-process';
import { freshDatabase, type TestDatabase } from '../support/database';
import { runKasi } from '../support/kasi';

const DOCS = path.resolve(__dirname, '../../docs');
const files = readdirSync(DOCS, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md')).sort();
/** The Markdown pages served from their Markdown (errors.md's twin, /docs/errors, is made from the code). */
const rendered = files.filter((f) => f !== 'reference/errors.md');
const examples = readdirSync(DOCS, { recursive: true, encoding: 'utf8' }).filter((f) => /(^|\/)examples\/[^/]+$/.test(f)).sort();

/** A page's first H1 as a reader sees it: its Markdown with code and emphasis marks taken off. */
function titleOf(file: string): string {
  let fenced = false;
  for (const line of readFileSync(path.join(DOCS, file), 'utf8').split('\n')) {
    if (/^ {0,3}(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? undefined : /^# +(.+?)\s*$/.exec(line)?.[1];
    if (heading !== undefined) return heading.replace(/[`*]/g, '');
  }
  throw new Error(`${file} has no H1`);
}

/** The hrefs of a page, unescaped. */
const hrefs = (html: string) => [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));

describe('the docs served at /docs', function () {
  this.timeout(60_000);
  let api: TestApi;
  const get = async (at: string) => {
    const res = await fetch(`${api.url}${at}`);
    return { status: res.status, headers: res.headers, html: await res.text() };
  };

  before(async () => {
    api = await startApi();
  });
  after(() => api?.close());

  it('serves a page at its path under /docs without .md, README.md at its folder', () => {
    assert.equal(servedPath('README.md'), '/docs');
    assert.equal(servedPath('guides/quick-start.md'), '/docs/guides/quick-start');
    assert.equal(servedPath('guides/README.md'), '/docs/guides');
    // The errors page is made from the code; docs/reference/errors.md is its Markdown twin for GitHub.
    assert.equal(servedPath('reference/errors.md'), '/docs/errors');
  });

  it('serves every page under docs/ with 200, titled with its first H1', async () => {
    assert.ok(rendered.length > 1, 'docs/ holds pages');
    for (const file of rendered) {
      const page = await get(servedPath(file));
      assert.equal(page.status, 200, file);
      assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
      const title = escapeHtml(titleOf(file));
      assert.ok(page.html.includes(`<title>${title} · Kasi docs</title>`), `${file}: <title> is ${title}`);
    }
  });

  it('/docs is docs/README.md and every page by title, the API reference and the one errors page among them', async () => {
    const contents = await get('/docs');
    assert.equal(contents.status, 200);
    assert.ok(contents.html.includes(`<title>${escapeHtml(titleOf('README.md'))} · Kasi docs</title>`));
    for (const file of rendered.filter((f) => f !== 'README.md')) {
      assert.ok(contents.html.includes(`<a href="${servedPath(file)}">${escapeHtml(titleOf(file))}</a>`), file);
    }
    for (const at of ['/docs/api', '/docs/errors']) {
      assert.ok(hrefs(contents.html).includes(at), at);
      assert.equal((await get(at)).status, 200, at);
    }
    // The Reference list names the errors page once: /docs/errors, never its Markdown twin.
    const reference = /<section><h3>Reference<\/h3>([\s\S]*?)<\/section>/.exec(contents.html)![1]!;
    assert.deepEqual(hrefs(reference).filter((h) => /errors/.test(h)), ['/docs/errors']);
    assert.ok(hrefs(reference).includes('/docs/api'), 'the API reference is a link');
    assert.ok(!hrefs(contents.html).includes('/docs/reference/errors'));
    // The Markdown twin's own path, for a reader coming from GitHub, leads to it.
    const moved = await fetch(`${api.url}/docs/reference/errors`, { redirect: 'manual' });
    assert.deepEqual([moved.status, moved.headers.get('location')], [301, '/docs/errors']);
  });

  it('/docs/api and /docs/errors carry the top bar (back to the contents, search) and /docs/api lists its endpoints, each linking to its operation', async () => {
    const contents = await get('/docs');
    const bar = contents.html.slice(contents.html.indexOf('<nav>'), contents.html.indexOf('</nav>') + 6);
    for (const at of ['/docs/api', '/docs/errors']) {
      const { html } = await get(at);
      assert.ok(html.includes(bar), `${at}: the same top bar as /docs`);
      assert.ok(hrefs(html).includes('/docs'), `${at} links to the contents`);
    }
    const { html } = await get('/docs/api');
    const index = /<h2 id="endpoints">Endpoints<\/h2>\s*<ul class="endpoints">([\s\S]*?)<\/ul>/.exec(html)?.[1];
    assert.ok(index, 'a list of endpoints at the top');
    assert.ok(html.indexOf('<ul class="endpoints">') < html.indexOf('<section id='), 'before the first operation');
    const listed = hrefs(index);
    assert.deepEqual([...listed].sort(), api.server.app.routes.map((r) => `#${r.operationId}`).sort(), 'every endpoint, once');
    for (const href of listed) assert.ok(html.includes(`<section id="${href.slice(1)}">`), href);
    assert.ok(index.includes('<a href="#createCheckout"><code>POST /v1/checkouts</code></a>'), index.slice(0, 300));
  });

  it('serves the example files under docs/**/examples/ as plain text, and the guides link to them', async () => {
    assert.ok(examples.length > 0, 'the guides have examples');
    for (const file of examples) {
      const res = await fetch(`${api.url}/docs/${file}`);
      assert.equal(res.status, 200, file);
      assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8', file);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', file);
      assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'/, file);
      assert.equal(res.headers.get('content-disposition'), `inline; filename="${path.basename(file)}"`);
      assert.equal(await res.text(), readFileSync(path.join(DOCS, file), 'utf8'), file);
    }
    const guide = await get('/docs/guides/verify-webhooks');
    for (const file of examples.filter((f) => f.startsWith('guides/'))) assert.ok(hrefs(guide.html).includes(`/docs/${file}`), `the guide links ${file}`);
    assert.equal((await get('/docs/guides/examples/nope.mjs')).status, 404);
  });

  it('a crawl from /docs reaches every page, and every link within /docs answers 200 with its anchor on the page', async () => {
    const pages = new Map<string, string>();
    const queue = ['/docs'];
    let anchorsChecked = 0;
    while (queue.length) {
      const at = queue.shift()!;
      if (pages.has(at)) continue;
      const page = await get(at);
      assert.equal(page.status, 200, at);
      pages.set(at, page.html);
      for (const href of hrefs(page.html).filter((h) => h.startsWith('/docs'))) queue.push(href.split('#')[0]!);
    }
    for (const [at, html] of pages) {
      for (const [target, anchor] of hrefs(html).filter((h) => h.startsWith('/docs') && h.includes('#')).map((h) => h.split('#'))) {
        assert.ok(pages.get(target!)!.includes(`id="${escapeHtml(decodeURIComponent(anchor!))}"`), `${at} links to ${target}#${anchor}, which has no such id`);
        anchorsChecked += 1;
      }
    }
    assert.deepEqual(files.map(servedPath).filter((p) => !pages.has(p)), [], 'pages the crawl did not reach');
    assert.ok(anchorsChecked > 0, 'some links carry an anchor');
  });

  /** The links of one part of a search's answer (titles, headings, mentions). */
  const found = (html: string, part: string) => hrefs([...html.matchAll(/<section id="([a-z]+)">([\s\S]*?)<\/section>/g)].find((m) => m[1] === part)?.[2] ?? '');

  it('finds pages by a word of their title, and no others', async () => {
    const titled = (word: string) => rendered.filter((f) => f !== 'README.md' && titleOf(f).toLowerCase().includes(word)).map(servedPath);
    const expected = titled('refund');
    assert.ok(expected.length > 0, 'a page titled with refunds');
    const answer = await get('/docs?q=Refund');
    assert.equal(answer.status, 200);
    assert.deepEqual(found(answer.html, 'titles').sort(), expected.sort());
    const none = await get(`/docs?q=${encodeURIComponent('refund xylophone')}`);
    assert.deepEqual(hrefs(none.html.slice(none.html.indexOf('<main>'))), ['/docs']);
    assert.match(none.html, /Nothing in the docs has “refund xylophone”/);
    const errors = await get('/docs?q=errors');
    assert.ok(found(errors.html, 'titles').includes('/docs/errors'), 'the errors page is found too');
    const hostile = await get(`/docs?q=${encodeURIComponent('"><script>alert(1)</script>')}`);
    assert.ok(!hostile.html.includes('<script'), 'the query is escaped');
  });

  it('finds H2 and H3 headings, linked at their anchors, and then the sections that mention the words', async () => {
    /** Every H2/H3 of the served Markdown pages as `/docs/page#anchor`, with its text. */
    const headings = rendered
      .filter((f) => f !== 'README.md')
      .flatMap((file) => renderMarkdown(readFileSync(path.join(DOCS, file), 'utf8'), file, () => true).sections.map((s) => ({ at: `${servedPath(file)}#${s.id}`, heading: s.heading, text: s.text })));
    for (const word of ['signature', 'idempotency']) {
      const expected = headings.filter((h) => h.heading.toLowerCase().includes(word)).map((h) => h.at);
      assert.ok(expected.length > 0, `a heading has ${word}`);
      const answer = await get(`/docs?q=${word}`);
      assert.deepEqual(found(answer.html, 'headings').sort(), expected.sort(), word);
      for (const at of expected) {
        const [page, anchor] = at.split('#');
        assert.ok((await get(page!)).html.includes(`id="${anchor}"`), at);
      }
    }
    // A word in no title or heading: the sections that say it.
    const mentioned = headings.filter((h) => !h.heading.toLowerCase().includes('proration') && h.text.toLowerCase().includes('proration')).map((h) => h.at);
    assert.ok(mentioned.length > 0, 'the docs mention proration');
    const answer = await get('/docs?q=proration');
    assert.deepEqual(found(answer.html, 'mentions').sort(), mentioned.slice(0, 20).sort());
    assert.match(answer.html, /<a href="[^"]+#[^"]+">[^<]+ › [^<]+<\/a>/, 'each section named by its page and its heading');
  });

  it('renders raw HTML as text and drops HTML comments, so a page cannot bring a script', () => {
    const { html } = renderMarkdown(
      [
        '# Title <script>alert(1)</script>',
        '',
        '<script>alert(2)</script>',
        '',
        '<!-- guide: pay "$CHECKOUT_URL" 4111111111111111 01/39 100 -->',
        '',
        'Inline <img src=x onerror=alert(3)> and [a link](javascript:alert(4)) and <a href="javascript:alert(5)">raw</a> <!-- hidden -->.',
        '',
        '<style>body{display:none}</style>',
      ].join('\n'),
      'guides/page.md',
      () => false,
    );
    for (const tag of ['<script', '<img', '<style', '<a ', 'javascript:alert(4)"', 'guide: pay', 'hidden']) assert.ok(!html.includes(tag), `${tag} in ${html}`);
    for (const text of ['&lt;script&gt;alert(2)&lt;/script&gt;', '&lt;img src=x onerror=alert(3)&gt;', '&lt;style&gt;']) assert.ok(html.includes(text), `${text} in ${html}`);
  });

  it("gives headings GitHub's anchors, points links between pages at their served paths and names other repository files by path", () => {
    const { title, html, links } = renderMarkdown(
      [
        '# Verify `webhooks`',
        '## Step 1: the *secret*',
        '## Step 1: the secret',
        'See [events](../reference/webhooks.md#event-types), [above](#step-1-the-secret-1), [the SDK](../../sdk/README.md), [code](examples/receiver.mjs) and [a gone page](gone.md).',
        '```sh\ncurl -s "$URL" <x>\n```',
      ].join('\n\n'),
      'guides/verify-webhooks.md',
      (file) => file === 'reference/webhooks.md',
    );
    assert.equal(title, 'Verify webhooks');
    assert.deepEqual(links, ['reference/webhooks.md']);
    assert.equal(headingSlug('Step 1: the secret'), 'step-1-the-secret');
    for (const part of [
      '<h1 id="verify-webhooks">',
      '<h2 id="step-1-the-secret">',
      '<h2 id="step-1-the-secret-1">',
      '<a href="/docs/reference/webhooks#event-types">events</a>',
      '<a href="#step-1-the-secret-1">above</a>',
      'the SDK (<code>sdk/README.md</code>)',
      '<a href="/docs/guides/examples/receiver.mjs">code</a>',
      'a gone page (<code>docs/guides/gone.md</code>)',
      '<pre><code class="language-sh">curl -s &quot;$URL&quot; &lt;x&gt;\n</code></pre>',
    ]) {
      assert.ok(html.includes(part), `${part} in ${html}`);
    }
  });

  it('sends the pages their Content-Security-Policy and security headers', async () => {
    const reference = (await get('/docs/errors')).headers;
    for (const at of ['/docs', servedPath(files.find((f) => f !== 'README.md')!), '/docs?q=refund', '/docs/nope', '/docs/api']) {
      const { headers } = await get(at);
      assert.match(headers.get('content-type') ?? '', /^text\/html/, at);
      assert.match(headers.get('content-security-policy') ?? '', /default-src 'none'/, at);
      for (const name of ['content-security-policy', 'x-frame-options', 'x-content-type-options', 'referrer-policy']) assert.equal(headers.get(name), reference.get(name), `${at}: ${name}`);
    }
  });

  it('answers an unknown page with 404 and a readable page, as the hosted pages do', async () => {
    for (const at of ['/docs/nope', '/docs/guides/nope', '/docs/README']) {
      const page = await get(at);
      assert.equal(page.status, 404, at);
      assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
      assert.ok(page.html.includes('<h1>Page not found</h1>'), at);
      assert.ok(hrefs(page.html).includes('/docs'), 'links to the contents');
    }
  });
});

describe('npm start', function () {
  this.timeout(120_000);
  let database: TestDatabase | undefined;
  let child: Child | undefined;
  after(async () => {
    await child?.stop();
    await database?.drop();
  });

  it('prints, after "listening on", where the docs are and the command that makes a merchant, which works', async () => {
    database = await freshDatabase();
    const env = { DATABASE_URL: database.url, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent', KASI_SECRET_KEY: TEST_SECRET_KEY };
    child = new Child('npm-start', 'start', env, path.join(os.tmpdir(), 'kasi-served-docs'));
    const url = (await child.waitForLine(/^listening on (http:\S+)$/, 90_000))[1]!;
    const command = (await child.waitForLine(/^make a merchant: (npx kasi .*)$/, 10_000))[1]!;
    const at = child.lines.findIndex((line) => line.startsWith('listening on '));
    assert.deepEqual(child.lines.slice(at + 1, at + 3), [`docs: ${url}/docs`, 'make a merchant: npx kasi merchant create --name "Your shop" --json']);
    assert.equal((await fetch(`${url}/docs`)).status, 200);
    const [npx, kasi, ...args] = [...command.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
    assert.deepEqual([npx, kasi], ['npx', 'kasi']);
    const made = await runKasi({ DATABASE_URL: database.url }, ...args);
    assert.equal(made.code, 0, made.stderr);
    const merchant = JSON.parse(made.stdout);
    const account = await fetch(`${url}/v1/account`, { headers: { authorization: `Bearer ${merchant.keys.sk_test}` } });
    assert.equal(((await account.json()) as { name: string }).name, 'Your shop');
  });
});
