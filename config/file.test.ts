import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { CHECK_IDS } from '../contracts/checks/index.ts';
import { OPERATIONS } from '../openapi/spec.ts';
import { CONFIG_SCHEMA_PATH, ConfigError, loadConfig, parseApiList, parseConfig } from './file.ts';

const dir = mkdtempSync(join(tmpdir(), 'kgate-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('parseConfig accepts the documented keys and names the key and the rule otherwise', () => {
  const full = {
    $schema: './node_modules/kgate/dist/config/kgate.config.schema.json',
    baseUrl: 'https://api.example.org/prefix/',
    keyVariables: { full: 'PROD_KEY', unsubscribed: 'PROD_KEY_ACADEMIC', exhausted: 'PROD_KEY_SPENT' },
    unsubscribedKeyCovers: ['academic'],
    checks: ['paging-is-consistent', 'response-matches-spec'],
    excludeChecks: ['body-limit-enforced'],
    severity: { 'event-ids-are-32-hex': 'fail', 'request-is-echoed': 'warn', 'rate-limit-signalled': 'off' },
    timeoutMs: 30_000,
    maxRps: 0.5,
    maxRpsByPath: { '/academic/v1.0/evaluate': 1, '/academic/v1.0/calchistogram': 0.1 },
    baseline: 'kgate.baseline.json',
    strict: true,
    againstUrl: 'https://prod.example.org/prefix',
    latencyThreshold: { percent: 15, ms: 8 },
  };
  const cases: { given: unknown; want: object | RegExp }[] = [
    { given: {}, want: {} },
    { given: { unsubscribedKeyCovers: ['academic'] }, want: { unsubscribedKeyCovers: ['academic'] } },
    { given: { $schema: './kgate.config.schema.json' }, want: { $schema: './kgate.config.schema.json' } },
    { given: full, want: { ...full, baseUrl: 'https://api.example.org/prefix' } },
    { given: { againstUrl: 'https://prod.example.org/' }, want: { againstUrl: 'https://prod.example.org' } },
    {
      given: { unsubscribedKeyCover: ['academic'] },
      want: /^kgate\.config\.json: unknown key 'unsubscribedKeyCover' \(did you mean unsubscribedKeyCovers\?\)$/,
    },
    {
      given: { zzzUnheardOf: 1 },
      want: /^kgate\.config\.json: unknown key 'zzzUnheardOf' \(known keys: baseUrl, keyVariables, unsubscribedKeyCovers, checks/,
    },
    {
      given: { unsubscribedKeyCovers: ['search'] },
      want: /key 'unsubscribedKeyCovers\.0' must be one of academic, answerSearch/,
    },
    { given: { unsubscribedKeyCovers: 'academic' }, want: /key 'unsubscribedKeyCovers' must be array/ },
    { given: [], want: /key '\(root\)' must be object/ },
    { given: { baseUrl: 'ftp://x' }, want: /key 'baseUrl' must be an absolute http\(s\) URL/ },
    { given: { baseUrl: 'http://x/?a=1' }, want: /key 'baseUrl' must be a base URL without query or fragment/ },
    { given: { againstUrl: 'http://x/#f' }, want: /key 'againstUrl' must be a base URL without query or fragment/ },
    { given: { againstUrl: 'prod' }, want: /key 'againstUrl' must be an absolute http\(s\) URL/ },
    {
      given: { latencyThreshold: { percent: -1 } },
      want: /^kgate\.config\.json: key 'latencyThreshold\.percent' must be from 0 to 10000 percent, got -1$/,
    },
    {
      given: { timeoutMs: 5 },
      want: /^kgate\.config\.json: key 'timeoutMs' must be from 100 to 600000 milliseconds, got 5$/,
    },
    { given: { maxDuration: '20m' }, want: { maxDuration: 1200 } },
    { given: { maxDuration: 90 }, want: { maxDuration: 90 } },
    {
      given: { maxDuration: 'soon' },
      want: /^kgate\.config\.json: key 'maxDuration' must be a duration with a unit, ms, s, m or h/,
    },
    { given: { maxDuration: '2d' }, want: /key 'maxDuration' must be a duration/ },
    { given: { maxDuration: '25h' }, want: /key 'maxDuration' .*, got '25h' \(25h: above 24h\)$/ },
    { given: { quota: '10000/month' }, want: { quota: '10000/month' } },
    {
      given: { quota: '10000' },
      want: /^kgate\.config\.json: key 'quota' must be N\/month, N a whole number of requests/,
    },
    { given: { quota: '0/month' }, want: /key 'quota' must be N\/month.*, got '0\/month' \(out of range\)$/ },
    { given: { maxRPS: 1 }, want: /^kgate\.config\.json: unknown key 'maxRPS' \(did you mean maxRps\?\)$/ },
    {
      given: { keyVariables: { ful: 'K' } },
      want: /unknown key 'keyVariables\.ful' \(did you mean keyVariables\.full\?\)$/,
    },
    {
      given: { keyVariables: { full: '3f9a0c1d2e4b5a6978d0c1b2a3f4e5d6' } },
      want: /^kgate\.config\.json: key 'keyVariables\.full' must name an environment variable \(upper-case letters, digits and _\), not hold a key$/,
    },
    {
      given: { keyVariables: { primary: 'KEY' } },
      want: /unknown key 'keyVariables\.primary' \(known keys: full, unsubscribed, exhausted, against\)/,
    },
    {
      given: { checks: ['paging'] },
      want: /key 'checks\.0' must be a check id \(response-matches-spec, content-type-is-json/,
    },
    { given: { checks: [] }, want: /key 'checks' must NOT have fewer than 1 items/ },
    {
      given: { excludeChecks: ['auth-required', 'auth-required'] },
      want: /key 'excludeChecks' must not list an item twice/,
    },
    {
      given: { severity: { 'no-such-check': 'warn' } },
      want: /key 'severity\.no-such-check': the name must be a check id \(response-matches-spec/,
    },
    {
      given: { severity: { 'auth-required': 'info' } },
      want: /key 'severity\.auth-required' must be one of fail, warn, off/,
    },
    { given: { timeoutMs: 50 }, want: /key 'timeoutMs' must be from 100 to 600000 milliseconds, got 50/ },
    { given: { timeoutMs: 1.5 }, want: /key 'timeoutMs' must be integer/ },
    { given: { maxRps: 0 }, want: /key 'maxRps' must be from 0.001 to 100000 requests per second, got 0$/ },
    {
      given: { maxRpsByPath: { '/academic/v1.0/histogram': 1 } },
      want: /key 'maxRpsByPath\.\/academic\/v1\.0\/histogram': the name must be a path of the spec \(\/academic\/v1\.0\/interpret, /,
    },
    {
      given: { maxRpsByPath: { '/academic/v1.0/evaluate': 0 } },
      want: /key 'maxRpsByPath\.\/academic\/v1\.0\/evaluate' must be from 0.001 to 100000 requests per second/,
    },
    { given: { maxRpsByPath: 1 }, want: /key 'maxRpsByPath' must be object/ },
    { given: { baseline: '' }, want: /key 'baseline' must NOT have fewer than 1 characters/ },
    { given: { strict: 'yes' }, want: /key 'strict' must be boolean/ },
    {
      given: {
        load: {
          thresholds: { evaluateGet: 'p(95)<300ms', '*': ['p(99)<1s', 'error_rate<1%'] },
          mix: { interpretGet: 7 },
        },
      },
      want: {
        load: {
          thresholds: { evaluateGet: 'p(95)<300ms', '*': ['p(99)<1s', 'error_rate<1%'] },
          mix: { interpretGet: 7 },
        },
      },
    },
    {
      given: { load: { thresholds: { evaluate: 'p(95)<300ms' } } },
      want: /key 'load\.thresholds\.evaluate': the name must be an operation id or \* \(\*, interpretGet, /,
    },
    {
      given: { load: { thresholds: { '*': 5 } } },
      want: /key 'load\.thresholds\.\*' must be a threshold in k6's syntax/,
    },
    {
      given: { load: { mix: { interpretGet: -1 } } },
      want: /key 'load\.mix\.interpretGet' must be from 0 to 1000000 weight/,
    },
    { given: { load: { threshold: {} } }, want: /unknown key 'load\.threshold' \(did you mean load\.thresholds\?\)/ },
  ];
  for (const { given, want } of cases) {
    if (want instanceof RegExp)
      assert.throws(
        () => parseConfig(structuredClone(given), 'kgate.config.json'),
        (error: unknown) => error instanceof ConfigError && want.test(error.message) && !error.message.includes('\n'),
        JSON.stringify(given),
      );
    else assert.deepEqual(parseConfig(structuredClone(given), 'kgate.config.json'), want, JSON.stringify(given));
  }
});

test('the schema lists exactly the registered check ids, so editors complete them', () => {
  const schema = JSON.parse(readFileSync(CONFIG_SCHEMA_PATH, 'utf8')) as { $defs: { checkId: { enum: string[] } } };
  assert.deepEqual(schema.$defs.checkId.enum, [...CHECK_IDS], 'config/kgate.config.schema.json $defs.checkId.enum');
});

test('the schema lists exactly the paths of the spec, which maxRpsByPath names', () => {
  const schema = JSON.parse(readFileSync(CONFIG_SCHEMA_PATH, 'utf8')) as { $defs: { specPath: { enum: string[] } } };
  assert.deepEqual(
    schema.$defs.specPath.enum,
    [...new Set(OPERATIONS.map((op) => op.path))],
    'config/kgate.config.schema.json $defs.specPath.enum',
  );
});

test('the schema lists exactly the operation ids of the spec, which load.thresholds and load.mix name', () => {
  const schema = JSON.parse(readFileSync(CONFIG_SCHEMA_PATH, 'utf8')) as { $defs: { operationId: { enum: string[] } } };
  assert.deepEqual(
    schema.$defs.operationId.enum,
    OPERATIONS.map((op) => op.operationId),
    'config/kgate.config.schema.json $defs.operationId.enum',
  );
  assert.deepEqual(
    (schema.$defs as unknown as { thresholdScope: { enum: string[] } }).thresholdScope.enum,
    ['*', ...OPERATIONS.map((op) => op.operationId)],
    'config/kgate.config.schema.json $defs.thresholdScope.enum',
  );
});

test('loadConfig reads kgate.config.json (or .yaml) from the working directory, or the file given', () => {
  assert.deepEqual(loadConfig(undefined, dir), {}, 'no file: no settings');
  writeFileSync(join(dir, 'kgate.config.yaml'), 'maxRps: 2\nbaseline: gate/baseline.json\n');
  assert.deepEqual(
    loadConfig(undefined, dir),
    { maxRps: 2, baseline: join(dir, 'gate/baseline.json') },
    'YAML, baseline resolved against the file',
  );
  writeFileSync(join(dir, 'kgate.config.json'), JSON.stringify({ unsubscribedKeyCovers: ['urlPreview'] }));
  assert.deepEqual(loadConfig(undefined, dir), { unsubscribedKeyCovers: ['urlPreview'] }, 'the JSON file comes first');
  mkdirSync(join(dir, 'ci'));
  writeFileSync(join(dir, 'ci', 'gate.json'), JSON.stringify({ baseline: '../known.json' }));
  assert.deepEqual(loadConfig('ci/gate.json', dir), { baseline: join(dir, 'known.json') }, 'the file given');
  writeFileSync(join(dir, 'other.json'), '{ not json');
  assert.throws(() => loadConfig('other.json', dir), /other\.json: not JSON/);
  writeFileSync(join(dir, 'bad.yaml'), 'maxRps: [1\n');
  assert.throws(() => loadConfig('bad.yaml', dir), /bad\.yaml: not YAML/);
  assert.throws(() => loadConfig('missing.json', dir), /missing\.json: cannot read \(ENOENT\)/);
});

test('parseApiList reads comma-separated APIs or none', () => {
  const cases: { given: string; want: string[] | RegExp }[] = [
    { given: 'academic', want: ['academic'] },
    { given: 'academic, eventKnowledge', want: ['academic', 'eventKnowledge'] },
    { given: 'none', want: [] },
    {
      given: 'similarity',
      want: /'similarity' is not an API \(a comma-separated list of academic, answerSearch, urlPreview, eventKnowledge, or none\)/,
    },
    { given: ' , ', want: /is not an API/ },
  ];
  for (const { given, want } of cases) {
    if (want instanceof RegExp) assert.throws(() => parseApiList(given, 'KGATE_KEY_UNSUBSCRIBED_COVERS'), want, given);
    else assert.deepEqual(parseApiList(given, 'KGATE_KEY_UNSUBSCRIBED_COVERS'), want, given);
  }
});
