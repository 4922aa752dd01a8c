// A service running elsewhere (a child process started as `npm start` runs it: test/support/
// child-process.ts), seen the way the test helpers that drive hosted pages see a TestApi
// (HostedApi in test/cards/card-flow.ts): its address, its database, and `request`, a thin fetch
// wrapper answering as TestApi's does. Its workflows run in real time, so there is nothing to
// settle: the helpers wait for what they need to see.
import type { Knex } from 'knex';
import type { HostedApi } from '../cards/card-flow';
import { requestAt } from './api';

export function remoteApi(url: string, knex: Knex): HostedApi {
  return {
    url,
    knex,
    workflows: { settle: async () => undefined },
    request: (path, options) => requestAt(url, path, options),
  };
}
