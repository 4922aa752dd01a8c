// The route template a request is observed under: the same template the API's router matches, for
// every route, and none for a path no route knows.
import assert from 'node:assert/strict';
import { loadConfig } from '../../config';
import { templateOf } from '../../api/platform/observe-requests';
import { pathMatcher } from '../../api/router';
import { apiRoutes } from '../../api/routes';

describe('route templates for metrics and logs', () => {
  const paths = [...new Set(apiRoutes(loadConfig({})).map((r) => r.path))];
  const ours = templateOf(paths, (path) => path);
  const routers = pathMatcher(paths.map((path) => ({ path, value: path })));

  it('finds the template the router matches, for every API route', () => {
    assert.ok(paths.some((p) => p.includes('{')), 'some routes take ids');
    for (const template of paths) {
      const concrete = template.replace(/\{\w+\}/g, 'obj_0mw4f5k2p9q8r7s6t5u4v3w2');
      assert.equal(routers(concrete, () => true)?.value, template, `the router matches ${concrete}`);
      assert.equal(ours(concrete), template, concrete);
    }
  });

  it('finds none for a path no route knows', () => {
    for (const path of ['/v1/checkouts/', '/v1/checkouts//', '/v1/Checkouts', '/v1/checkouts/chk_1/extra/x', '/v1/', '/v1', '/v1/nothing', '', 'v1/checkouts']) {
      assert.equal(ours(path), undefined, path);
      assert.equal(routers(path, () => true), undefined, `the router agrees on ${path}`);
    }
  });
});
