import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { Failure } from '../contracts/failure.ts';
import {
  BaselineError,
  type ConformanceBaseline,
  fingerprintOf,
  isExpired,
  normalizePointer,
  parseBaseline,
  RECORDED_REASON,
  readBaseline,
  updatedBaseline,
  writeBaseline,
} from './baseline.ts';

const dir = mkdtempSync(join(tmpdir(), 'kgate-baseline-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const OP = 'GET /academic/v1.0/evaluate';
const failure = (over: Partial<Failure> = {}): Failure => ({
  check: 'response-matches-spec',
  operation: OP,
  title: 'status 200 body does not match the spec',
  received: 'r',
  documented: 'd',
  pointer: '/entities/3/prob',
  ...over,
});

test('a fingerprint is check, operation and pointer, with array indexes read as *', () => {
  const cases: { given: Pick<Failure, 'check' | 'operation' | 'pointer'>; want: string }[] = [
    { given: failure(), want: `response-matches-spec ${OP} /entities/*/prob` },
    { given: failure({ pointer: '/entities/12/AA/0/AuN' }), want: `response-matches-spec ${OP} /entities/*/AA/*/AuN` },
    { given: failure({ pointer: undefined, check: 'paging-is-consistent' }), want: `paging-is-consistent ${OP}` },
    { given: failure({ pointer: '' }), want: `response-matches-spec ${OP}` },
    { given: failure({ pointer: '/histograms/0/h2' }), want: `response-matches-spec ${OP} /histograms/*/h2` },
  ];
  for (const { given, want } of cases) assert.equal(fingerprintOf(given), want, JSON.stringify(given));
  assert.equal(normalizePointer('/value/10'), '/value/*', 'a trailing index');
});

test('parseBaseline names the entry and the rule of the first problem', () => {
  const entry = { check: 'auth-required', operation: OP, reason: 'gateway answers 403, ticket API-12' };
  const cases: { given: unknown; want: RegExp | ConformanceBaseline }[] = [
    {
      given: { kgateConformanceBaseline: 1, failures: [entry] },
      want: { kgateConformanceBaseline: 1, failures: [entry] },
    },
    { given: { failures: [] }, want: /^b\.json: not a kgate conformance baseline/ },
    { given: { kgateConformanceBaseline: 1 }, want: /^b\.json: key 'failures' must be an array$/ },
    {
      given: { kgateConformanceBaseline: 1, failures: [{ ...entry, reason: ' ' }] },
      want: /^b\.json: failures\[0\]\.reason must be a non-empty string$/,
    },
    {
      given: { kgateConformanceBaseline: 1, failures: [entry, { ...entry, expires: '31.12.2026' }] },
      want: /^b\.json: failures\[1\]\.expires must be a date YYYY-MM-DD$/,
    },
    {
      given: { kgateConformanceBaseline: 1, failures: [{ ...entry, fingerprint: 'x' }] },
      want: /^b\.json: failures\[0\]: unknown key 'fingerprint'/,
    },
  ];
  for (const { given, want } of cases) {
    if (want instanceof RegExp)
      assert.throws(
        () => parseBaseline(given, 'b.json'),
        (error: unknown) => error instanceof BaselineError && want.test(error.message),
        JSON.stringify(given),
      );
    else assert.deepEqual(parseBaseline(given, 'b.json'), want, JSON.stringify(given));
  }
  assert.throws(
    () => readBaseline(join(dir, 'none.json')),
    /none\.json: no such file \(create it with --update-baseline\)/,
  );
});

test('an entry holds through its expiry day (UTC) and no longer', () => {
  const cases: { given: { expires?: string; today: string }; want: boolean }[] = [
    { given: { today: '2030-01-01' }, want: false },
    { given: { expires: '2026-12-31', today: '2026-12-31' }, want: false },
    { given: { expires: '2026-12-31', today: '2027-01-01' }, want: true },
  ];
  for (const { given, want } of cases) assert.equal(isExpired(given, given.today), want, JSON.stringify(given));
});

test('--update-baseline round trip: write, read back, keep reasons, add new failures, drop fixed ones', () => {
  const file = join(dir, 'kgate.baseline.json');
  const first = updatedBaseline(
    undefined,
    [
      failure(),
      failure({ pointer: '/entities/7/prob' }),
      failure({ check: 'paging-is-consistent', pointer: undefined, title: 'pages overlap' }),
      failure({ check: 'auth-required', level: 'warn' }),
      failure({ check: 'orderby-is-honoured', origin: 'error' }),
      failure({ check: 'attributes-are-honoured', origin: 'not-run', title: 'not run: given up' }),
    ],
    '2026-11-23',
  );
  assert.equal(first.added.length, 2, 'one entry per fingerprint; warnings, kgate errors and tests not run never');
  writeBaseline(file, first.baseline);
  const read = readBaseline(file);
  assert.deepEqual(read, first.baseline, 'what was written reads back');
  assert.deepEqual(
    read.failures.map((entry) => [entry.check, entry.pointer, entry.reason]),
    [
      ['paging-is-consistent', undefined, RECORDED_REASON],
      ['response-matches-spec', '/entities/*/prob', RECORDED_REASON],
    ],
    'sorted by operation and check, pointers normalized',
  );
  assert.ok(readFileSync(file, 'utf8').endsWith('}\n'), 'the file ends with a newline');

  const edited: ConformanceBaseline = {
    kgateConformanceBaseline: 1,
    failures: read.failures.map((entry) => ({ ...entry, reason: `accepted: ${entry.check}`, expires: '2026-01-31' })),
  };
  const second = updatedBaseline(
    edited,
    [failure({ pointer: '/entities/0/prob' }), failure({ check: 'request-is-echoed', pointer: '/expr' })],
    '2026-11-23',
  );
  assert.deepEqual(
    second.baseline.failures.map((entry) => [entry.check, entry.reason, entry.expires]),
    [
      ['request-is-echoed', RECORDED_REASON, undefined],
      ['response-matches-spec', 'accepted: response-matches-spec', '2026-01-31'],
    ],
    'a matching entry keeps its reason and expiry; a new failure is added',
  );
  assert.deepEqual(
    second.dropped.map((entry) => entry.check),
    ['paging-is-consistent'],
    'an entry that no longer fails is dropped',
  );
  assert.deepEqual(
    second.expired.map((entry) => entry.check),
    ['response-matches-spec'],
    'an update never extends an expiry',
  );
});
