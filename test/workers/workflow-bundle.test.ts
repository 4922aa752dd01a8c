// The workflow bundle is built in a child process: what comes back must run, and a failed build
// must say why and must not be remembered.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflows } from '../../workers/embedded-engine/workflow-bundle';

describe('workflow bundle', function () {
  // Inside the repository, so the workflow's imports resolve from its node_modules.
  const dir = fs.mkdtempSync(path.resolve(__dirname, '../fixtures/bundle-'));
  const workflowsPath = path.join(dir, 'workflows.ts');
  after(function () {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a build that fails rejects with webpack\'s reason, and the next call builds afresh', async function () {
    fs.writeFileSync(workflowsPath, `import { missing } from './not-there';\nexport async function broken(): Promise<string> { return missing; }\n`);
    await assert.rejects(bundleWorkflows(workflowsPath), (err: Error) => {
      assert.match(err.message, /bundling .*workflows\.ts failed/);
      assert.match(err.message, /not-there/);
      return true;
    });
    fs.writeFileSync(workflowsPath, `export async function greet(name: string): Promise<string> { return 'hello ' + name; }\n`);
    const bundle = await bundleWorkflows(workflowsPath);
    assert.match(bundle.code, /hello /);
    assert.match(bundle.code, /__TEMPORAL__/);
  });

  it('the bundle comes back whole when a module preloaded through NODE_OPTIONS prints to stdout', async function () {
    // As `-r dotenv/config` does; the bundler's child inherits the environment.
    const noisy = path.join(dir, 'noisy.cjs');
    fs.writeFileSync(noisy, `console.log('[noisy] preloaded');\n`);
    const quietPath = path.join(dir, 'quiet.ts');
    fs.writeFileSync(quietPath, `export async function quiet(): Promise<string> { return 'quiet please'; }\n`);
    const before = process.env.NODE_OPTIONS;
    process.env.NODE_OPTIONS = `${before ?? ''} --require ${noisy}`.trim();
    try {
      const bundle = await bundleWorkflows(quietPath);
      assert.match(bundle.code, /quiet please/);
    } finally {
      if (before === undefined) delete process.env.NODE_OPTIONS;
      else process.env.NODE_OPTIONS = before;
    }
  });
});
