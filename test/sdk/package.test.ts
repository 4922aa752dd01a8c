// The merchants' package as a merchant gets it: sdk/ built with its own tsconfig (into a temporary
// folder, so the test checks the build and not a committed copy), packed with `npm pack`, unpacked
// into a project outside the repository, then used from CommonJS, ESM and TypeScript.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { signatureHeader } from '../../domain/webhook-signature';

const run = promisify(execFile);
const repo = path.resolve(__dirname, '../..');
const tsc = path.join(repo, 'node_modules/typescript/bin/tsc');
const manifest = JSON.parse(readFileSync(path.join(repo, 'sdk/package.json'), 'utf8'));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
}

// What a consumer script checks: the real signature verifies (as a string and as a Buffer) and a
// tampered body is refused with the package's own error class.
const consumerBody = `
const { body, header, secret } = JSON.parse(process.argv[2]);
const tampered = (() => {
  try {
    verifyWebhook(body.replace('350000', '350001'), header, secret);
    return 'accepted';
  } catch (err) {
    return err instanceof WebhookVerificationError ? err.reason : String(err);
  }
})();
console.log(JSON.stringify({
  headerName: SIGNATURE_HEADER,
  eventId: verifyWebhook(body, header, secret).id,
  fromBuffer: verifyWebhook(Buffer.from(body), header, secret).id,
  tampered,
}));
`;

describe('the SDK package (@kasi/webhooks)', function () {
  this.timeout(120_000);
  let tmp: string;
  let pkg: string;
  let consumer: string;
  let packed: string[];

  before(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'kasi-sdk-'));
    pkg = path.join(tmp, 'package');
    mkdirSync(pkg);
    copyFileSync(path.join(repo, 'sdk/package.json'), path.join(pkg, 'package.json'));
    copyFileSync(path.join(repo, 'sdk/README.md'), path.join(pkg, 'README.md'));
    await run(process.execPath, [tsc, '-p', path.join(repo, 'sdk/tsconfig.json'), '--outDir', path.join(pkg, 'dist')]);
    // The build above is what prepack does; --ignore-scripts keeps it from building into sdk/.
    const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp], { cwd: pkg });
    const [{ filename, files }] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }];
    packed = files.map((f) => f.path).sort();
    consumer = path.join(tmp, 'merchant');
    const installed = path.join(consumer, 'node_modules', ...manifest.name.split('/'));
    mkdirSync(installed, { recursive: true });
    await run('tar', ['xzf', path.join(tmp, filename), '-C', installed, '--strip-components=1']);
    writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ private: true, type: 'commonjs' }));
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('packs compiled JavaScript and declarations only, with main, types and exports inside the package', () => {
    assert.deepEqual(packed, [
      'README.md',
      'dist/domain/webhook-signature.d.ts',
      'dist/domain/webhook-signature.js',
      'dist/sdk/index.d.ts',
      'dist/sdk/index.js',
      'package.json',
    ]);
    const entries = [manifest.main, manifest.types, manifest.exports['.'].types, manifest.exports['.'].default];
    for (const entry of entries) assert.ok(packed.includes(path.normalize(entry as string)), `${entry} is not in the package`);
  });

  it('needs nothing at run time but Node built-ins and its own files', () => {
    const dist = path.join(consumer, 'node_modules', ...manifest.name.split('/'), 'dist');
    for (const file of filesUnder(dist).filter((f) => f.endsWith('.js'))) {
      const required = [...readFileSync(path.join(dist, file), 'utf8').matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]!);
      for (const name of required) {
        const inside = name.startsWith('.') && !path.relative(dist, path.resolve(path.dirname(path.join(dist, file)), name)).startsWith('..');
        assert.ok(name.startsWith('node:') || inside, `${file} requires ${name}`);
      }
    }
  });

  async function consume(file: string, source: string): Promise<Record<string, string>> {
    writeFileSync(path.join(consumer, file), source);
    const secret = 'whsec_merchant_secret';
    const body = JSON.stringify({ id: 'evt_sdk', object: 'event', type: 'payment.succeeded', data: { amountCents: 350000 } });
    const header = signatureHeader(['whsec_rotated_away', secret], Math.floor(Date.now() / 1000), body);
    const { stdout } = await run(process.execPath, [file, JSON.stringify({ body, header, secret })], { cwd: consumer });
    return JSON.parse(stdout);
  }

  const expected = { headerName: 'Service-Signature', eventId: 'evt_sdk', fromBuffer: 'evt_sdk', tampered: 'no_matching_signature' };

  it('verifies a real signature and refuses a tampered body from plain CommonJS (require)', async () => {
    const source = `const { verifyWebhook, WebhookVerificationError, SIGNATURE_HEADER } = require('${manifest.name}');\n${consumerBody}`;
    assert.deepEqual(await consume('verify.js', source), expected);
  });

  it('does the same from an ES module (import)', async () => {
    const source = `import { verifyWebhook, WebhookVerificationError, SIGNATURE_HEADER } from '${manifest.name}';\n${consumerBody}`;
    assert.deepEqual(await consume('verify.mjs', source), expected);
  });

  it('typechecks TypeScript consumers, CommonJS and ESM, against the emitted declarations', async () => {
    const source = `import { verifyWebhook, WebhookVerificationError, type WebhookVerificationFailure } from '${manifest.name}';
export function reasonOf(body: string, header: string | undefined, secret: string): WebhookVerificationFailure | { id: string } {
  try {
    return verifyWebhook<{ id: string }>(body, header, secret, { toleranceSeconds: 60 });
  } catch (err) {
    if (err instanceof WebhookVerificationError) return err.reason;
    throw err;
  }
}
// @ts-expect-error the secret is required: the declarations are real, not any
verifyWebhook('{}', 't=1');
`;
    writeFileSync(path.join(consumer, 'consumer.ts'), source);
    writeFileSync(path.join(consumer, 'consumer.mts'), source);
    const tsconfig = {
      compilerOptions: {
        module: 'node16', moduleResolution: 'node16', target: 'ES2022', strict: true, noEmit: true,
        types: ['node'], typeRoots: [path.join(repo, 'node_modules/@types')],
      },
      files: ['consumer.ts', 'consumer.mts'],
    };
    writeFileSync(path.join(consumer, 'tsconfig.json'), JSON.stringify(tsconfig));
    await run(process.execPath, [tsc, '-p', path.join(consumer, 'tsconfig.json')]).catch((err: { stdout: string }) => {
      assert.fail(`the consumer does not typecheck:\n${err.stdout}`);
    });
  });
});

describe('the SDK inside this repository', () => {
  it('is loaded from its source by every file that imports it, never through the package\'s main (built only when packed): no DEP0128', async function () {
    this.timeout(60_000);
    const importer = /from '((?:\.\.\/)+sdk(?:\/[^']*)?)'/g;
    const loaded = new Set<string>();
    for (const folder of ['test', 'bench', 'scripts']) {
      for (const file of filesUnder(path.join(repo, folder)).filter((f) => f.endsWith('.ts'))) {
        const source = readFileSync(path.join(repo, folder, file), 'utf8');
        for (const [, specifier] of source.matchAll(importer)) loaded.add(path.resolve(repo, folder, path.dirname(file), specifier!));
      }
    }
    assert.ok(loaded.size > 0, 'the suite imports the SDK');
    for (const target of loaded) {
      await run(process.execPath, ['--throw-deprecation', '--import', 'tsx', '-e', `require(${JSON.stringify(target)})`], { cwd: repo }).catch((err: { stderr: string }) => {
        assert.fail(`loading ${path.relative(repo, target)} warns:\n${err.stderr}`);
      });
    }
  });
});
