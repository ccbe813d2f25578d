// k6 cannot run here, so the k6 scripts are checked the ways that do not need it: they type-check
// under @types/k6 alone, import only k6 modules and relative files, and when bundled with stubbed
// k6 modules they export the thresholds and arrival profile of ../scenarios.ts and send the mix.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { scenarioFor, thresholdsFor, validateShareNote } from './k6/options.ts';
import { bundleScenario, withSettings } from './k6-bundle.ts';
import { plannedArrivals, SCENARIOS } from './scenarios.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const k6Dir = join(root, 'load', 'k6');
const SCRIPTS = ['smoke', 'steady', 'spike', 'soak'];

interface StubCall {
  method: string;
  url: string;
  body: unknown;
  params: { headers?: Record<string, string>; tags?: Record<string, string> };
}

const STUBS: Record<string, string> = {
  k6: 'export const check = (value, checks, tags) => globalThis.__k6.check(value, checks, tags); export default {};',
  'k6/http':
    'export default { get: (url, params) => globalThis.__k6.request("GET", url, null, params), request: (method, url, body, params) => globalThis.__k6.request(method, url, body, params) };',
};

const stubK6: Plugin = {
  name: 'stub-k6',
  setup(b) {
    b.onResolve({ filter: /^k6(\/.*)?$/ }, (args) => ({ path: args.path, namespace: 'k6-stub' }));
    b.onLoad({ filter: /.*/, namespace: 'k6-stub' }, (args) => {
      const contents = STUBS[args.path];
      if (contents === undefined) throw new Error(`no stub for ${args.path}`);
      return { contents, loader: 'js' };
    });
  },
};

async function loadScript(name: string): Promise<{
  options: { thresholds: Record<string, string[]>; scenarios: Record<string, Record<string, unknown>> };
  setup(): { baseUrl: string; pathParams: Record<string, string> };
  default(data: unknown): void;
}> {
  const out = await build({
    entryPoints: [join(k6Dir, `${name}.ts`)],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
    plugins: [stubK6],
    logLevel: 'silent',
  });
  const code = out.outputFiles[0]!.text;
  return import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
}

function bodyFor(url: string): unknown {
  if (url.includes('/similarity')) return 0.61;
  if (url.includes('/interpret')) return { query: 'q', interpretations: [], aborted: false };
  if (url.includes('/evaluate')) return { expr: 'e', entities: [], aborted: false };
  if (url.includes('/calchistogram')) return { expr: 'e', num_entities: 0, histograms: [], aborted: false };
  if (url.includes('/answersearch')) return { _type: 'SearchResponse', queryContext: {} };
  if (url.includes('/urlpreview'))
    return { _type: 'WebPage', name: 'n', url: 'u', description: 'd', primaryImageOfPage: {} };
  return { value: [{ eventId: 'ev-1' }] };
}

describe('k6 scripts', () => {
  test('type-check under their own tsconfig with @types/k6 and no Node types', () => {
    const tsc = spawnSync(
      process.execPath,
      [join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', join(k6Dir, 'tsconfig.json')],
      {
        encoding: 'utf8',
      },
    );
    assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
    const config = JSON.parse(readFileSync(join(k6Dir, 'tsconfig.json'), 'utf8'));
    assert.deepEqual(config.compilerOptions.types, ['k6']);
  });

  test('import only k6 modules and relative files; scenarios.ts imports nothing', () => {
    const files = readdirSync(k6Dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    for (const file of files) {
      const source = readFileSync(join(k6Dir, file), 'utf8');
      for (const [, specifier] of source.matchAll(/\bfrom\s+'([^']+)'/g)) {
        assert.ok(/^k6(\/|$)/.test(specifier!) || specifier!.startsWith('.'), `${file} imports '${specifier}'`);
      }
      assert.doesNotMatch(source, /\bprocess\.|\brequire\(|node:/, `${file} uses no Node API`);
    }
    const scenarios = readFileSync(join(root, 'load', 'scenarios.ts'), 'utf8');
    assert.doesNotMatch(scenarios, /^import /m, 'scenarios.ts must stay importable by k6');
  });

  for (const name of SCRIPTS) {
    test(`${name}.ts exports the thresholds and arrival profile of scenarios.ts`, async () => {
      (globalThis as Record<string, unknown>).__ENV = {};
      const script = await loadScript(name);
      const scenario = SCENARIOS[name]!;
      const t = script.options.thresholds;
      const limit = (expr: string | undefined) => Number(/[\d.]+$/.exec(expr ?? '')?.[0]);
      assert.equal(limit(t.http_req_duration?.find((e) => e.startsWith('p(95)'))), scenario.thresholds.p95Ms);
      assert.equal(limit(t.http_req_duration?.find((e) => e.startsWith('p(99)'))), scenario.thresholds.p99Ms);
      assert.equal(limit(t.http_req_failed?.[0]), scenario.thresholds.maxErrorRate);
      assert.equal(limit(t.checks?.[0]), scenario.thresholds.minValidShare);
      assert.equal(
        limit(t.dropped_iterations?.[0]),
        Math.floor(scenario.thresholds.maxErrorRate * plannedArrivals(scenario)),
      );
      const executor = script.options.scenarios[name]!;
      assert.equal(executor.executor, 'ramping-arrival-rate');
      assert.equal(executor.startRate, scenario.startRate);
      assert.equal(executor.maxVUs, scenario.connections);
      assert.deepEqual(
        executor.stages,
        scenario.stages.map((s) => ({ duration: `${s.durationS * 1000}ms`, target: s.target })),
      );
    });
  }

  test('smoke.ts discovers an event id in setup and sends the whole mix with the key under the base path, checking every answer', async () => {
    (globalThis as Record<string, unknown>).__ENV = { BASE_URL: 'http://127.0.0.1:9/api/', KGATE_KEY: 'k6-test-key' };
    const calls: StubCall[] = [];
    const checks: boolean[] = [];
    (globalThis as Record<string, unknown>).__k6 = {
      request: (method: string, url: string, body: unknown, params: StubCall['params']) => {
        calls.push({ method, url, body, params });
        const payload = JSON.stringify(bodyFor(url));
        return {
          status: 200,
          headers: { 'Content-Type': 'application/json; charset=utf-8' },
          body: payload,
          json: () => JSON.parse(payload),
        };
      },
      check: (value: unknown, named: Record<string, (v: unknown) => boolean>) => {
        for (const fn of Object.values(named)) checks.push(fn(value));
        return true;
      },
    };
    const script = await loadScript('smoke');
    const data = script.setup();
    assert.deepEqual(data, { baseUrl: 'http://127.0.0.1:9/api', pathParams: { event_id: 'ev-1' } });
    assert.equal(
      calls[0]!.url.split('?')[0],
      'http://127.0.0.1:9/api/eventknowledge/v1.0/hotevents',
      'setup keeps the path',
    );
    for (let i = 0; i < 400; i++) script.default(data);
    const sent = calls.slice(1);
    const operations = new Set(sent.map((c) => c.params.tags?.name));
    assert.deepEqual([...operations].sort(), [...new Set(SCENARIOS.smoke!.mix.map((m) => m.operationId))].sort());
    assert.ok(sent.every((c) => c.params.headers?.['Ocp-Apim-Subscription-Key'] === 'k6-test-key'));
    assert.ok(
      sent.every((c) => c.url.startsWith('http://127.0.0.1:9/api/')),
      'every request keeps the base path',
    );
    assert.ok(sent.some((c) => c.url === 'http://127.0.0.1:9/api/eventknowledge/v1.0/events/ev-1/documents?%24top=5'));
    assert.ok(
      sent
        .filter((c) => c.method === 'POST')
        .every((c) => typeof c.body === 'string' && c.params.headers?.['Content-Type']),
    );
    assert.equal(checks.length, 400 * 3, 'smoke checks every response (validate share 100 %)');
    assert.ok(checks.every(Boolean));
  });

  test('a BASE_URL with a query string is refused in setup with a clear message', async () => {
    (globalThis as Record<string, unknown>).__ENV = { BASE_URL: 'http://127.0.0.1:9/api?code=1' };
    const script = await loadScript('smoke');
    assert.throws(() => script.setup(), /no query or fragment/);
  });
});

describe("the k6 options: one unit for the validated share, and the bundle's settings", () => {
  test('VALIDATE_PERCENT is a percentage, as kgate load --validate-share; VALIDATE_SHARE, the old fraction, is read with a note', () => {
    assert.equal(scenarioFor('steady', { VALIDATE_PERCENT: '50' }, undefined).validateShare, 0.5);
    assert.equal(validateShareNote({ VALIDATE_PERCENT: '50' }), undefined);
    assert.equal(scenarioFor('steady', { VALIDATE_SHARE: '0.25' }, undefined).validateShare, 0.25);
    assert.match(
      validateShareNote({ VALIDATE_SHARE: '0.25' })!,
      /VALIDATE_SHARE .* is now VALIDATE_PERCENT .*read as 25 %/,
    );
    assert.equal(
      scenarioFor('steady', { VALIDATE_PERCENT: '10', VALIDATE_SHARE: '0.9' }, undefined).validateShare,
      0.1,
      'the percentage wins',
    );
    assert.throws(
      () => scenarioFor('steady', { VALIDATE_PERCENT: '150' }, undefined),
      /VALIDATE_PERCENT takes a percentage from 0 to 100, got '150'/,
    );
    assert.throws(() => scenarioFor('steady', { VALIDATE_SHARE: '5' }, undefined), /use VALIDATE_PERCENT=<0\.\.100>/);
  });

  test("a bundle's rules replace the scenario's thresholds; its mix replaces the scenario's", () => {
    const steady = SCENARIOS.steady!;
    const settings = {
      thresholds: ['*: p(99)<1s', 'evaluateGet: p(95)<300ms', 'hotEvents: error_rate<=2%'],
      mix: [SCENARIOS.steady!.mix[0]!],
    };
    assert.deepEqual(thresholdsFor(steady, settings), {
      http_req_duration: ['p(99)<1000'],
      'http_req_duration{name:evaluateGet}': ['p(95)<300'],
      'http_req_failed{name:hotEvents}': ['rate<=0.02'],
    });
    assert.deepEqual(scenarioFor('steady', {}, settings).mix, settings.mix);
    const own = thresholdsFor(steady, undefined);
    assert.deepEqual(own.http_req_duration, [`p(95)<=${steady.thresholds.p95Ms}`, `p(99)<=${steady.thresholds.p99Ms}`]);
  });

  test('kgate k6 bundle writes the settings in once, and names them in the header', async () => {
    const script = await bundleScenario('smoke', { thresholds: ['evaluateGet: p(95)<300ms'] });
    assert.ok(!script.includes('__KGATE_BUNDLE_SETTINGS__'), 'the placeholder is replaced');
    assert.match(script, /^\/\/ Thresholds \(kgate load judges the same\): evaluateGet: p\(95\)<300ms$/m);
    assert.equal(
      script.split('evaluateGet: p(95)<300ms').length - 1,
      2,
      'in the header and in the settings, once each',
    );
    assert.throws(
      () => withSettings('no placeholder here', 'smoke', { thresholds: [] }),
      /holds its settings placeholder 0 times/,
    );
  });
});
