// A Kasi process under test, run as `npm start` or `npm run worker` runs it (one node process,
// package.json's tsx flags: nodeCommandFor): its output is kept in a log file under `logDir`, and
// lines of it can be waited for.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { nodeCommandFor, PROJECT_ROOT } from '../../workers/temporal-dev-server';

/** A Kasi process under test: its output goes to `logDir`/`name`.log, and lines can be waited for. */
export class Child {
  readonly process: ChildProcess;
  readonly logPath: string;
  /** Every line printed so far, stdout's and stderr's in the order read. */
  readonly lines: string[] = [];
  private readonly waiters = new Set<() => void>();
  readonly exited: Promise<number | null>;

  constructor(
    readonly name: string,
    script: 'start' | 'worker',
    env: Record<string, string>,
    logDir: string,
  ) {
    const { command, args } = nodeCommandFor(script);
    mkdirSync(logDir, { recursive: true });
    this.logPath = path.join(logDir, `${name}.log`);
    const log = createWriteStream(this.logPath);
    this.process = spawn(command, args, { cwd: PROJECT_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [this.process.stdout!, this.process.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => {
        log.write(`${line}\n`);
        this.lines.push(line);
        for (const wake of this.waiters) wake();
      });
    }
    this.exited = new Promise((resolve) => this.process.once('exit', (code) => resolve(code)));
    void this.exited.then(() => {
      log.end();
      for (const wake of this.waiters) wake();
    });
  }

  get running(): boolean {
    return this.process.exitCode === null && this.process.signalCode === null;
  }

  /** The first line matching `pattern`; fails if the process exits or the time runs out first. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        for (const line of this.lines) {
          const match = pattern.exec(line);
          if (match) return done(() => resolve(match));
        }
        if (!this.running) done(() => reject(new Error(`${this.name} exited (${this.process.exitCode ?? this.process.signalCode}) before printing ${pattern}; see ${this.logPath}`)));
      };
      const timer = setTimeout(() => done(() => reject(new Error(`${this.name} printed no ${pattern} within ${timeoutMs} ms; see ${this.logPath}`))), timeoutMs);
      const done = (settle: () => void) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        settle();
      };
      this.waiters.add(check);
      check();
    });
  }

  /** SIGTERM, then SIGKILL if it has not stopped in time; resolves with the exit code. */
  async stop(graceMs = 15_000): Promise<number | null> {
    if (this.running) this.process.kill('SIGTERM');
    const timer = setTimeout(() => this.process.kill('SIGKILL'), graceMs);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}
