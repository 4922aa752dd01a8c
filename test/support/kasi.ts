// The `kasi` CLI as a user runs it: bin/kasi in a child process, with the tests' secret key and
// the environment given (DATABASE_URL of the server under test, say).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { TEST_SECRET_KEY } from './api';

const run = promisify(execFile);
const bin = path.resolve(__dirname, '../../bin/kasi');

export interface KasiRun {
  stdout: string;
  stderr: string;
  code: number;
}

export async function runKasi(env: Record<string, string>, ...args: string[]): Promise<KasiRun> {
  try {
    const { stdout, stderr } = await run(bin, args, { env: { ...process.env, KASI_SECRET_KEY: TEST_SECRET_KEY, ...env } });
    return { stdout, stderr, code: 0 };
  } catch (err) {
    const e = err as KasiRun;
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}
