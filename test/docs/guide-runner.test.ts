// The guides' harness itself: it finds each command's answer, masks only what differs from run to
// run, and fails a guide whose answer is not what the command prints.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startApi, type TestApi } from '../support/api';
import { mask, parseGuide, runGuide } from './guide-runner';

const fence = '```';

describe('the guides harness', function () {
  this.timeout(60_000);

  it('pairs each command with the answer block right after it, and reads browser steps', () => {
    const steps = parseGuide(
      [
        '# A guide',
        `${fence}sh`,
        'echo one',
        fence,
        '',
        `${fence}json`,
        '{"n": 1}',
        fence,
        'Some prose.',
        `${fence}json`,
        '{"shown": "an example, not an answer"}',
        fence,
        '<!-- guide: pay "$URL" 5123450000000008 01/39 100 -->',
        `${fence}sh`,
        'echo two',
        fence,
        'Prose between.',
        `${fence}text`,
        'not an answer either',
        fence,
      ].join('\n'),
    );
    assert.deepEqual(
      steps.map((s) => (s.kind === 'sh' ? { code: s.code, answer: s.answer?.body } : { action: s.name, args: s.args })),
      [{ code: 'echo one', answer: '{"n": 1}' }, { action: 'pay', args: '"$URL" 5123450000000008 01/39 100' }, { code: 'echo two', answer: undefined }],
    );
  });

  it('masks ids, times, hex and epochs, and nothing else', () => {
    assert.equal(
      mask('pay_0mwzcgbnm6fdtexmb41kxdhn at 2026-11-27T18:57:58.018Z, sk_test_abcdefghijklmnop1234, t=1764270000,v1=9f86d081884c7d659a2feaa0c55ad015; 150000 LKR, pay_short'),
      'pay_<id> at <time>, sk_test_<id>, t=<epoch>,v1=<hex>; 150000 LKR, pay_short',
    );
    // Signing secrets are base64url, `-` and `_` included.
    assert.equal(mask('"secret": "whsec__AdgtqRmTKPJwzMd9Lm18Rp-YvTSbICaJQbAnM3VYFE"'), '"secret": "whsec_<secret>"');
  });

  describe('running a guide', () => {
    let api: TestApi;
    let dir: string;
    before(async () => {
      api = await startApi();
      dir = mkdtempSync(path.join(tmpdir(), 'kasi-guide-test-'));
    });
    after(async () => {
      await api.close();
      rmSync(dir, { recursive: true, force: true });
    });

    const guide = (body: string) => {
      const file = path.join(dir, `g${Math.random().toString(36).slice(2)}.md`);
      writeFileSync(file, body);
      return file;
    };

    it('passes when every answer is what the command prints (ids and times aside), keeping the session between blocks', async () => {
      const file = guide(`${fence}sh\nexport N=7\ncurl -s http://127.0.0.1:3000/healthz\n${fence}\n\n${fence}json\n{"status": "ok"}\n${fence}\n\n${fence}sh\necho "{\\"id\\": \\"pay_0mwzcgbnm6fdtexmb41kxdhn\\", \\"n\\": $N}"\n${fence}\n${fence}json\n{"id": "pay_0aaaaaaaaaaaaaaaaaaaaaaa", "n": 7}\n${fence}\n`);
      await runGuide(file, { api, receiverPort: 1, record: false });
    });

    it('fails when an answer differs, or a command fails', async () => {
      await assert.rejects(runGuide(guide(`${fence}sh\necho '{"n": 1}'\n${fence}\n${fence}json\n{"n": 2}\n${fence}\n`), { api, receiverPort: 1, record: false }), /the answer differs/);
      await assert.rejects(runGuide(guide(`${fence}sh\necho ok\n${fence}\n${fence}text\nnot ok\n${fence}\n`), { api, receiverPort: 1, record: false }), /the answer differs/);
      await assert.rejects(runGuide(guide(`${fence}sh\nfalse | cat\n${fence}\n`), { api, receiverPort: 1, record: false }), /the command failed/);
    });

    it('moves the server\'s time for a sleep block, and records answers in record mode', async () => {
      const before = api.clock.now().getTime();
      const file = guide(`${fence}sh\nsleep 30\n${fence}\n\n${fence}sh\necho '{"a":[1,2]}'\n${fence}\n\n${fence}json\n${fence}\n`);
      await runGuide(file, { api, receiverPort: 1, record: true });
      assert.equal(api.clock.now().getTime() - before, 30_000);
      assert.match(readFileSync(file, 'utf8'), /```json\n\{\n {2}"a": \[\n {4}1,\n {4}2\n {2}\]\n\}\n```/);
    });
  });
});
