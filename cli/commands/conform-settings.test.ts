import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readEnv } from '../../config/env.ts';
import type { KgateConfig } from '../../config/file.ts';
import { parseCommandArgs, UsageError } from '../door/args.ts';
import { CONFORM_OPTIONS, type ConformSettings, resolveConformSettings } from './conform-settings.ts';

function settings(argv: string[], env: NodeJS.ProcessEnv, config: KgateConfig): ConformSettings {
  const { options } = parseCommandArgs(argv, CONFORM_OPTIONS, 'conform');
  return resolveConformSettings(options, readEnv(env), config, { cwd: '/work/gate' });
}

const FILE: KgateConfig = {
  baseUrl: 'https://file.example.org',
  keyVariables: { full: 'PROD_KEY' },
  unsubscribedKeyCovers: ['academic'],
  checks: ['auth-required', 'paging-is-consistent'],
  excludeChecks: ['body-limit-enforced'],
  severity: { 'request-is-echoed': 'warn', 'rate-limit-signalled': 'off', 'event-ids-are-32-hex': 'fail' },
  timeoutMs: 20_000,
  maxRps: 1,
  maxRpsByPath: { '/academic/v1.0/calchistogram': 0.1 },
  baseline: '/work/gate/known.json',
  strict: true,
  maxDuration: 1200,
  latencyBudgetMs: { '/academic/v1.0/evaluate': 3_000 },
};

test("conform's own settings: flags win over the environment, which wins over the configuration file (the door resolves the target, keys and limits)", () => {
  const cases: {
    given: { argv: string[]; env: NodeJS.ProcessEnv; config: KgateConfig };
    want: Partial<ConformSettings>;
  }[] = [
    {
      given: { argv: [], env: {}, config: {} },
      want: { checks: undefined, excludeChecks: undefined, strict: false },
    },
    {
      given: { argv: [], env: { PROD_KEY: 'p' }, config: FILE },
      want: {
        covers: ['academic'],
        checks: ['auth-required', 'paging-is-consistent'],
        excludeChecks: ['body-limit-enforced', 'rate-limit-signalled'],
        severity: { 'request-is-echoed': 'warn', 'event-ids-are-32-hex': 'fail' },
        maxRpsByPath: { '/academic/v1.0/calchistogram': 0.1 },
        baseline: '/work/gate/known.json',
        strict: true,
        latencyBudgetMs: { '/academic/v1.0/evaluate': 3_000 },
      },
    },
    {
      given: {
        argv: [],
        env: { KGATE_BASE_URL: 'http://env.example.org/', KGATE_KEY: 'k', KGATE_KEY_UNSUBSCRIBED_COVERS: 'none' },
        config: FILE,
      },
      want: { covers: [] },
    },
    {
      given: {
        argv: [
          '--base-url',
          'http://flag.example.org',
          '--checks',
          'orderby-is-honoured',
          '--exclude-checks',
          'auth-required',
          '--timeout',
          '0.5s',
          '--max-rps',
          '0.2',
          '--max-rps-by-path',
          '/academic/v1.0/evaluate=1, /eventknowledge/v1.0/events/{event_id}/documents=0.5',
          '--baseline',
          'other.json',
          '--max-duration',
          '15m',
        ],
        env: { KGATE_BASE_URL: 'http://env.example.org' },
        config: FILE,
      },
      want: {
        checks: ['orderby-is-honoured'],
        excludeChecks: ['auth-required', 'rate-limit-signalled'],
        maxRpsByPath: { '/academic/v1.0/evaluate': 1, '/eventknowledge/v1.0/events/{event_id}/documents': 0.5 },
        baseline: '/work/gate/other.json',
      },
    },
    {
      given: { argv: ['--strict'], env: {}, config: {} },
      want: { strict: true, latencyBudgetMs: undefined },
    },
  ];
  for (const { given, want } of cases) {
    const got = settings(given.argv, given.env, given.config);
    for (const [key, value] of Object.entries(want)) {
      assert.deepEqual(got[key as keyof ConformSettings], value, `${key} for ${JSON.stringify(given)}`);
    }
  }
});

test('bad values are one line naming the option and the rule', () => {
  const cases: { given: string[]; want: RegExp }[] = [
    {
      given: ['--max-rps', '0'],
      want: /^option --max-rps takes a number of requests per second from 0\.001 to 100000, got '0' \(out of range\)$/,
    },
    {
      given: ['--max-rps', '-3'],
      want: /^option --max-rps takes a number of requests per second .*, got '-3' \(out of range\)$/,
    },
    {
      given: ['--max-rps', 'fast'],
      want: /^option --max-rps takes a number of requests per second .* \(not a number\)$/,
    },
    {
      given: ['--checks', 'auth-requird'],
      want: /^option --checks takes a comma-separated list of check ids .*, got 'auth-requird' \(unknown: 'auth-requird'; did you mean auth-required\?\)$/,
    },
    {
      given: ['--max-rps-by-path', '/academic/v1.0/evaluate'],
      want: /^option --max-rps-by-path takes PATH=R pairs separated by commas, PATH a path of the spec and R a number of requests per second from 0\.001 to 100000 \(e\.g\. \/academic\/v1\.0\/calchistogram=0\.1\), got '\/academic\/v1\.0\/evaluate' \('\/academic\/v1\.0\/evaluate' is not PATH=R\)$/,
    },
    {
      given: ['--max-rps-by-path', '/academic/v1.0/evaluate=0'],
      want: /^option --max-rps-by-path takes PATH=R.*out of range\)$/,
    },
    { given: ['--max-rps-by-path', '/academic/v1.0/evaluate='], want: /^option --max-rps-by-path takes PATH=R/ },
    {
      given: ['--max-rps-by-path', 'evaluate=1'],
      want: /^option --max-rps-by-path takes PATH=R.*\(unknown path 'evaluate'; paths of the spec: \/academic\/v1\.0\/interpret, /,
    },
    {
      given: ['--max-rps-by-path', '/academic/v1.0/evaluat=1'],
      want: /\(unknown path '\/academic\/v1\.0\/evaluat'; did you mean \/academic\/v1\.0\/evaluate\?\)$/,
    },
    {
      given: ['--max-rps-by-path', '/academic/v1.0/evaluate=1,/academic/v1.0/evaluate=2'],
      want: /^option --max-rps-by-path takes PATH=R.*\(path '\/academic\/v1\.0\/evaluate' is given twice\)$/,
    },
    { given: ['--update-baseline'], want: /^option --update-baseline needs --baseline FILE/ },
    {
      given: ['--max-duration', 'soon'],
      want: /^option --max-duration takes a duration with a unit, ms, s, m or h \(such as 500ms, 10s, 2m\), from 1s to 24h, got 'soon' \(not a number with a unit\)$/,
    },
    { given: ['--max-duration', '0s'], want: /^option --max-duration takes a duration .*, got '0s' \(0s: below 1s\)$/ },
    {
      given: ['--timeout', '10'],
      want: /^option --timeout takes .*, got '10' \(a bare number has no unit: write 10ms or 10s\)$/,
    },
    { given: ['--baseline', ''], want: /^option --baseline takes a file path/ },
  ];
  for (const { given, want } of cases) {
    assert.throws(
      () => settings(given, {}, {}),
      (error: unknown) => error instanceof UsageError && want.test(error.message),
      given.join(' '),
    );
  }
  assert.throws(
    () => settings([], { KGATE_KEY_UNSUBSCRIBED_COVERS: 'search' }, {}),
    /KGATE_KEY_UNSUBSCRIBED_COVERS: 'search' is not an API/,
    'a wrong KGATE_KEY_UNSUBSCRIBED_COVERS',
  );
});
