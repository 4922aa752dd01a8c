// Every guide in docs/guides/ runs as its reader would run it, against a real server of its own,
// and shows what the server really answers (see guide-runner.ts). KASI_GUIDES_RECORD=1 writes the
// answers of the run into the guides instead of checking them.
import { readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { startApi, type TestApi } from '../support/api';
import { REPO, runGuide } from './guide-runner';

const GUIDES = path.join(REPO, 'docs/guides');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the guides run as written', function () {
  this.timeout(600_000);
  const files = readdirSync(GUIDES)
    .filter((f) => f.endsWith('.md'))
    .sort();

  for (const name of files) {
    it(`docs/guides/${name}`, async () => {
      const api: TestApi = await startApi({ env: { KASI_WEBHOOK_ALLOW_LOOPBACK: 'true' } });
      try {
        await runGuide(`docs/guides/${name}`, { api, receiverPort: await freePort(), record: process.env.KASI_GUIDES_RECORD === '1' });
      } finally {
        await api.close();
      }
    });
  }
});
