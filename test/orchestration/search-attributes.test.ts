// Kasi's search attributes where the server refuses to register them (a cluster whose operator
// API is behind an authorizer). The development server lets anyone register
// them, so it cannot refuse: a gRPC server of the test's own stands in for Temporal's frontend at
// that one edge. It answers the operator service's two calls the way a server that denies them does
// (gRPC status PERMISSION_DENIED, status 7) and nothing else (every other method: UNIMPLEMENTED),
// and Kasi reaches it through the real @temporalio/client Connection, as on a real cluster. Where
// registration is allowed, the end-to-end test on a plain development server shows it
// (test/e2e/own-temporal.test.ts).
import assert from 'node:assert/strict';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { ensureSearchAttributes, SearchAttributesMissingError } from '../../orchestration/search-attributes';
import { startOrchestration } from '../../workers/orchestration';
import { silentLog } from '../../workers/embedded-engine/log';
import { PROJECT_ROOT } from '../../workers/temporal-dev-server';
import { TEST_SECRET_KEY } from '../support/api';
import { Child } from '../support/child-process';
import { freshDatabase } from '../support/database';

const operator = temporal.api.operatorservice.v1;

interface Denying {
  address: string;
  /** The search attributes the namespace already has, all Keyword. */
  registered: string[];
  /** Calls made, by method name. */
  calls: string[];
  stop(): Promise<void>;
}

/** A frontend whose namespace lists `registered` (or refuses to list, with listDenied) and refuses to add any. */
async function denyingFrontend(options: { registered: string[]; listDenied?: boolean }): Promise<Denying> {
  const calls: string[] = [];
  const unary = <Req, Res>(name: string, Req: { decode(b: Uint8Array): Req }, Res: { encode(m: Res): { finish(): Uint8Array } }) => ({
    path: `/temporal.api.operatorservice.v1.OperatorService/${name}`,
    requestStream: false,
    responseStream: false,
    requestDeserialize: (b: Buffer) => Req.decode(b),
    requestSerialize: () => Buffer.alloc(0),
    responseSerialize: (m: Res) => Buffer.from(Res.encode(m).finish()),
    responseDeserialize: () => ({}) as Res,
  });
  const denied = (method: string) => ({ code: grpc.status.PERMISSION_DENIED, details: `Request unauthorized: ${method} is not permitted for this caller` });
  const server = new grpc.Server();
  server.addService(
    {
      ListSearchAttributes: unary('ListSearchAttributes', operator.ListSearchAttributesRequest, operator.ListSearchAttributesResponse),
      AddSearchAttributes: unary('AddSearchAttributes', operator.AddSearchAttributesRequest, operator.AddSearchAttributesResponse),
    },
    {
      ListSearchAttributes: (_call: unknown, callback: grpc.sendUnaryData<temporal.api.operatorservice.v1.ListSearchAttributesResponse>) => {
        calls.push('ListSearchAttributes');
        if (options.listDenied) return callback(denied('ListSearchAttributes'));
        const customAttributes = Object.fromEntries(options.registered.map((name) => [name, temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD]));
        callback(null, operator.ListSearchAttributesResponse.create({ customAttributes }));
      },
      AddSearchAttributes: (_call: unknown, callback: grpc.sendUnaryData<temporal.api.operatorservice.v1.AddSearchAttributesResponse>) => {
        calls.push('AddSearchAttributes');
        callback(denied('AddSearchAttributes'));
      },
    },
  );
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))));
  return {
    address: `127.0.0.1:${port}`,
    registered: options.registered,
    calls,
    stop: () => new Promise((resolve) => server.tryShutdown(() => resolve())),
  };
}

const COMMAND = (address: string, names: string[]) => `temporal operator search-attribute create --address ${address} --namespace kasi-cloud ${names.map((n) => `--name ${n}`).join(' ')} --type Keyword`;

describe('search attributes on a server that refuses to register them (PERMISSION_DENIED)', function () {
  let frontend: Denying | undefined;
  afterEach(async () => {
    await frontend?.stop();
    frontend = undefined;
  });

  it('Kasi does not start its orchestration: it refuses, naming the command that registers both attributes', async () => {
    frontend = await denyingFrontend({ registered: [] });
    const workflowsPath = path.resolve(__dirname, '../fixtures/workflows/index.ts');
    const refused = await startOrchestration({ temporalAddress: frontend.address, namespace: 'kasi-cloud', workflowsPath, activities: {}, log: silentLog }).then(
      () => assert.fail('started'),
      (err: unknown) => err,
    );
    assert.ok(refused instanceof SearchAttributesMissingError, String(refused));
    assert.ok(refused.message.includes(COMMAND(frontend.address, ['KasiAccountId', 'KasiMode'])), refused.message);
    assert.match(refused.message, /permission denied/);
    // Asked, tried to register, and refused: nothing polled or started.
    assert.deepEqual(frontend.calls, ['ListSearchAttributes', 'AddSearchAttributes']);
    // /readyz's words leave out the server's address.
    assert.ok(refused.publicMessage.includes('temporal operator search-attribute create --namespace kasi-cloud --name KasiAccountId --name KasiMode --type Keyword'), refused.publicMessage);
  });

  it('names only what is missing, and starts where everything is registered already (nothing to add)', async () => {
    frontend = await denyingFrontend({ registered: ['KasiMode'] });
    const connection = await Connection.connect({ address: frontend.address });
    try {
      const err = await ensureSearchAttributes(connection.operatorService, { namespace: 'kasi-cloud', address: frontend.address }).then(
        () => assert.fail('accepted'),
        (e: unknown) => e as SearchAttributesMissingError,
      );
      assert.deepEqual(err.missing, ['KasiAccountId']);
      assert.ok(err.message.includes(COMMAND(frontend.address, ['KasiAccountId'])), err.message);
      frontend.registered.push('KasiAccountId');
      assert.equal(await ensureSearchAttributes(connection.operatorService, { namespace: 'kasi-cloud', address: frontend.address }), 'present');
    } finally {
      await connection.close();
    }
  });

  it('a namespace whose attributes may not even be listed: refused, naming both', async () => {
    frontend = await denyingFrontend({ registered: [], listDenied: true });
    const connection = await Connection.connect({ address: frontend.address });
    try {
      const err = await ensureSearchAttributes(connection.operatorService, { namespace: 'kasi-cloud', address: frontend.address }).then(
        () => assert.fail('accepted'),
        (e: unknown) => e as SearchAttributesMissingError,
      );
      assert.ok(err instanceof SearchAttributesMissingError, String(err));
      assert.ok(err.message.includes(COMMAND(frontend.address, ['KasiAccountId', 'KasiMode'])), err.message);
    } finally {
      await connection.close();
    }
  });

  it('`npm start` and `npm run worker` with TEMPORAL_ADDRESS there exit 1, printing the command (no stack trace)', async function () {
    this.timeout(90_000);
    frontend = await denyingFrontend({ registered: [] });
    const database = await freshDatabase();
    const env = { DATABASE_URL: database.url, TEMPORAL_ADDRESS: frontend.address, TEMPORAL_NAMESPACE: 'kasi-cloud', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', KASI_SECRET_KEY: TEST_SECRET_KEY };
    const logs = path.join(PROJECT_ROOT, 'test-artifacts', 'search-attributes');
    const children = [new Child('refused-start', 'start', env, logs), new Child('refused-worker', 'worker', env, logs)];
    try {
      for (const child of children) {
        const line = (await child.waitForLine(/^refusing to start: .*/, 60_000))[0];
        assert.ok(line.includes(COMMAND(frontend.address, ['KasiAccountId', 'KasiMode'])), line);
        assert.equal(await child.exited, 1, child.name);
      }
    } finally {
      await Promise.all(children.map((child) => child.stop()));
      await database.drop();
    }
  });
});
