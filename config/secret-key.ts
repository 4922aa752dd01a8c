// The key that encrypts stored secrets (webhook signing secrets): KASI_SECRET_KEY (32 bytes,
// base64), or on embedded defaults a key made once and kept in KASI_DATA_DIR/secret.key (mode
// 0600), which the server and the CLI then share.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export function loadSecretKey(fromEnv: string | undefined, dataDir: string): Buffer {
  if (fromEnv) {
    const key = Buffer.from(fromEnv, 'base64');
    if (key.length !== 32) throw new Error('KASI_SECRET_KEY must be 32 bytes in base64');
    return key;
  }
  const file = path.join(dataDir, 'secret.key');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    try {
      writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
    } catch (err) {
      // Another process made it first: use theirs.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return loadSecretKey(readFileSync(file, 'utf8').trim(), dataDir);
}
