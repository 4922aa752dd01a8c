// Runs a guide (docs/guides/*.md) as a reader would: every ```sh block in order, in one bash
// session, against a real server; the ```json or ```text block right after a command is its answer,
// checked after masking what differs from run to run (ids, times, long hex). A block that is only
// `sleep N` moves the server's virtual time instead of waiting, and a browser step is a comment
// `<!-- guide: <action> <args> -->` the harness performs (test/docs/guide-actions.ts). In record
// mode the answers the run gave are written back into the guide.
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TEST_SECRET_KEY, type TestApi } from '../support/api';
import { GUIDE_ACTIONS } from './guide-actions';

export const REPO = path.resolve(__dirname, '../..');

/** What a guide writes, and what the harness runs instead. */
export const GUIDE_BASE_URL = 'http://127.0.0.1:3000';
export const GUIDE_RECEIVER = '127.0.0.1:4242';

interface Answer {
  lang: 'json' | 'text';
  body: string;
  /** Line indexes (0-based) of the answer's content: [from, to). */
  from: number;
  to: number;
}

export type GuideStep =
  | { kind: 'sh'; code: string; line: number; answer?: Answer }
  | { kind: 'action'; name: string; args: string; line: number };

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w-]*)/;
const ACTION = /^<!--\s*guide:\s*([\w-]+)\s*(.*?)\s*-->\s*$/;

/** The steps of a guide: its sh blocks (with the answer block that follows each) and its actions. */
export function parseGuide(markdown: string): GuideStep[] {
  const lines = markdown.split('\n');
  const blocks: { lang: string; from: number; to: number; line: number }[] = [];
  const steps: GuideStep[] = [];
  const order: (GuideStep | number)[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (open) {
      const fence = open[1]!;
      let j = i + 1;
      while (j < lines.length && !(lines[j]!.trim().startsWith(fence[0]!.repeat(fence.length)) && lines[j]!.trim().replace(/[`~]/g, '') === '')) j++;
      blocks.push({ lang: open[2] ?? '', from: i + 1, to: j, line: i + 1 });
      order.push(blocks.length - 1);
      i = j;
      continue;
    }
    const action = ACTION.exec(lines[i]!.trim());
    if (action) order.push({ kind: 'action', name: action[1]!, args: action[2]!, line: i + 1 });
  }
  let previous: GuideStep | undefined;
  for (const item of order) {
    if (typeof item !== 'number') {
      steps.push(item);
      previous = undefined;
      continue;
    }
    const block = blocks[item]!;
    const body = lines.slice(block.from, block.to).join('\n');
    const between = previous?.kind === 'sh' ? lines.slice(blocks[item - 1]!.to + 1, block.from - 1) : [];
    if (previous?.kind === 'sh' && previous.answer === undefined && (block.lang === 'json' || block.lang === 'text') && between.every((l) => l.trim() === '')) {
      previous.answer = { lang: block.lang, body, from: block.from, to: block.to };
      previous = undefined;
    } else if (block.lang === 'sh') {
      previous = { kind: 'sh', code: body, line: block.line };
      steps.push(previous);
    } else {
      previous = undefined;
    }
  }
  return steps;
}

const MASKS: [RegExp, string][] = [
  [/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})/g, '<time>'],
  // Signing secrets are base64url: `-` and `_` inside them too.
  [/\bwhsec_[0-9A-Za-z_-]{43}(?![0-9A-Za-z_-])/g, 'whsec_<secret>'],
  [/\b([a-z]+(?:_[a-z]+)*)_[0-9A-Za-z]{16,}\b/g, '$1_<id>'],
  [/\b[0-9a-f]{16,}\b/g, '<hex>'],
  [/\b1[6-9]\d{8}(\d{3})?\b/g, '<epoch>'],
];

/** A string as the guide may show it from any run: ids, times, hex and epochs masked. */
export function mask(text: string): string {
  return MASKS.reduce((s, [pattern, replacement]) => s.replace(pattern, replacement), text);
}

function maskValue(value: unknown): unknown {
  if (typeof value === 'string') return mask(value);
  if (Array.isArray(value)) return value.map(maskValue);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskValue(v)]));
  return value;
}

/** One JSON value, or (a stream such as `jq -c` prints) one per line. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l));
  }
}

function recorded(answer: Answer, stdout: string): string {
  if (answer.lang === 'text') return stdout.replace(/\s+$/, '');
  try {
    return JSON.stringify(JSON.parse(stdout), null, 2);
  } catch {
    return stdout
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.stringify(JSON.parse(l)))
      .join('\n');
  }
}

function checkAnswer(answer: Answer, stdout: string, where: string): void {
  if (answer.lang === 'text') {
    const tidy = (s: string) => mask(s).replace(/[ \t]+$/gm, '').trim();
    assert.equal(tidy(stdout), tidy(answer.body), `${where}: the answer differs from the guide's`);
    return;
  }
  let actual: unknown;
  try {
    actual = parseJson(stdout);
  } catch {
    assert.fail(`${where}: the guide shows JSON but the command printed:\n${stdout}`);
  }
  assert.deepEqual(maskValue(actual), maskValue(parseJson(answer.body)), `${where}: the answer differs from the guide's`);
}

/** A bash session whose steps run one at a time, each with its own stdout, stderr and status. */
class Shell {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly dir = mkdtempSync(path.join(tmpdir(), 'kasi-guide-'));
  private waiter: { resolve: (line: string) => void; reject: (err: Error) => void } | undefined;
  private buffered = '';
  private count = 0;

  constructor(env: Record<string, string>) {
    this.child = spawn('bash', ['--noprofile', '--norc'], { cwd: REPO, env: { ...process.env, ...env, KASI_DATA_DIR: path.join(this.dir, 'data') }, detached: true });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      this.buffered += chunk;
      const end = this.buffered.indexOf('\n');
      if (end >= 0 && this.waiter) {
        const line = this.buffered.slice(0, end);
        this.buffered = this.buffered.slice(end + 1);
        this.waiter.resolve(line);
      }
    });
    this.child.on('exit', () => this.waiter?.reject(new Error('bash exited during the step')));
    this.child.stdin.write('set -o pipefail\n');
  }

  async run(code: string, timeoutMs: number): Promise<{ stdout: string; stderr: string; status: number }> {
    const n = ++this.count;
    const file = (suffix: string) => path.join(this.dir, `${n}.${suffix}`);
    writeFileSync(file('sh'), `${code}\n`);
    const done = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the step did not finish within ${timeoutMs} ms:\n${code}`)), timeoutMs);
      this.waiter = {
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
        reject: (err) => {
          clearTimeout(timer);
          reject(new Error(`${err.message}:\n${code}`));
        },
      };
    });
    this.child.stdin.write(`source ${file('sh')} >${file('out')} 2>${file('err')} </dev/null; echo "$?"\n`);
    const status = Number(await done);
    this.waiter = undefined;
    return { stdout: readFileSync(file('out'), 'utf8'), stderr: readFileSync(file('err'), 'utf8'), status };
  }

  /** Words as the session expands them (its variables, quotes). */
  async expand(words: string): Promise<string[]> {
    const { stdout } = await this.run(`printf '%s\\0' ${words}`, 10_000);
    return stdout.split('\0').slice(0, -1);
  }

  close(): void {
    try {
      process.kill(-this.child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export interface GuideRun {
  api: TestApi;
  /** A free port for the guide's local webhook receiver. */
  receiverPort: number;
  record: boolean;
}

/** Runs the guide at `file` (relative to the repository) against `run.api`; in record mode, rewrites its answers. */
export async function runGuide(file: string, run: GuideRun): Promise<void> {
  const markdown = readFileSync(path.resolve(REPO, file), 'utf8');
  const lines = markdown.split('\n');
  const receiver = `127.0.0.1:${run.receiverPort}`;
  const toServer = (s: string) => s.replaceAll(GUIDE_BASE_URL, run.api.url).replaceAll(GUIDE_RECEIVER, receiver);
  const fromServer = (s: string) => s.replaceAll(run.api.url, GUIDE_BASE_URL).replaceAll(receiver, GUIDE_RECEIVER);
  const shell = new Shell({ DATABASE_URL: run.api.databaseUrl, KASI_SECRET_KEY: TEST_SECRET_KEY, NO_COLOR: '1' });
  const rewrites: { answer: Answer; body: string }[] = [];
  try {
    for (const step of parseGuide(markdown)) {
      const where = `${file}:${step.line}`;
      if (step.kind === 'action') {
        const action = GUIDE_ACTIONS[step.name];
        assert.ok(action, `${where}: no guide action "${step.name}" (test/docs/guide-actions.ts)`);
        await action(run.api, await shell.expand(toServer(step.args)));
        await run.api.workflows.settle();
        continue;
      }
      const sleep = /^\s*sleep\s+(\d+(?:\.\d+)?)\s*$/.exec(step.code);
      if (sleep) {
        await run.api.clock.advance(Number(sleep[1]) * 1000);
        // What fell due may have recorded events: their webhooks go out before the next step.
        await run.api.workflows.settle();
        continue;
      }
      const result = await shell.run(toServer(step.code), 120_000);
      assert.equal(result.status, 0, `${where}: the command failed (status ${result.status}):\n${step.code}\n${result.stderr}${result.stdout}`);
      await run.api.workflows.settle();
      if (!step.answer) continue;
      const stdout = fromServer(result.stdout);
      if (run.record) rewrites.push({ answer: step.answer, body: recorded(step.answer, stdout) });
      else checkAnswer(step.answer, stdout, where);
    }
  } finally {
    shell.close();
    // What ran before a failure is recorded too, so a guide is written a step at a time.
    if (rewrites.length) {
      for (const { answer, body } of rewrites.reverse()) lines.splice(answer.from, answer.to - answer.from, ...body.split('\n'));
      writeFileSync(path.resolve(REPO, file), lines.join('\n'));
    }
  }
}
