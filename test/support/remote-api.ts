// A service running elsewhere (a child process started as `npm start` runs it: test/support/
// child-process.ts), seen the way the test helpers that drive hosted pages see a TestApi
// (HostedApi in test/cards/card-flow.ts): its address, its database, and `request`, a thin fetch
// wrapper answering as TestApi's does. Its workflows run in real time, so there is nothing to
// settle: the helpers wait for what they need to see.
import type { Knex } from 'knex';
import type { HostedApi } from '../cards/card-flow';
import type { RequestOptions, TestResponse } from './api';

export function remoteApi(url: string, knex: Knex): HostedApi {
  return {
    url,
    knex,
    workflows: { settle: async () => undefined },
    async request<T = any>(path: string, options: RequestOptions = {}): Promise<TestResponse<T>> {
      const headers: Record<string, string> = { ...options.headers };
      if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
      if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
      let body: string | undefined = options.raw;
      if (body === undefined && options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(`${url}${path}`, { method: options.method ?? (body !== undefined ? 'POST' : 'GET'), headers, body });
      const text = await res.text();
      let parsed: unknown = undefined;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, headers: res.headers, body: parsed as T, text };
    },
  };
}
