// A real webhook receiver on 127.0.0.1 for tests: records every request (raw body and headers)
// and answers as told (a status per request, a delay).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Statuses to answer in order; once used up, `fallback`. */
  statuses: number[];
  fallback: number;
  delayMs: number;
  /** TCP connections accepted so far. */
  connections: number;
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const receiver: Partial<Receiver> & { server?: Server } = { received: [], statuses: [], fallback: 200, delayMs: 0, connections: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      receiver.received!.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() });
      const status = receiver.statuses!.shift() ?? receiver.fallback!;
      const answer = () => {
        res.statusCode = status;
        res.end(status >= 200 && status < 300 ? 'ok' : `failing with ${status}`);
      };
      if (receiver.delayMs) setTimeout(answer, receiver.delayMs);
      else answer();
    });
  });
  server.on('connection', () => {
    receiver.connections! += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}${path}`,
    async waitFor(count: number, timeoutMs = 5000) {
      const until = Date.now() + timeoutMs;
      while (receiver.received!.length < count) {
        if (Date.now() > until) throw new Error(`expected ${count} requests, got ${receiver.received!.length}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      return receiver.received!;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  }) as Receiver;
}
