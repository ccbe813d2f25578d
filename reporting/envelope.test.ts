import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordTiming } from '../contracts/timings.ts';
import { historyEnvelopeChanges } from '../drift/history.ts';
import { noFrontLimits, recordPassed, recordRefusal } from '../http/front-limits.ts';
import { noObservations, observeAnswer } from '../http/observations.ts';
import { throttleSignal } from '../http/throttle.ts';
import {
  buildEnvelope,
  type Envelope,
  type EnvelopeBounds,
  envelopeBreaches,
  envelopeChanges,
  envelopeLines,
  LATENCY_NOISE,
  latencyFigures,
  latencySpread,
} from './envelope.ts';
import { envelopeSchemaErrors } from './envelope-schema.ts';

const EVALUATE = 'GET /academic/v1.0/evaluate';

/** An envelope whose evaluate p95 is about `p95` ms over 40 samples, with a URL limit refused at `refused` bytes. */
function envelope(options: { p95?: number; refused?: number; passed?: number; server?: string } = {}): Envelope {
  const timings = {};
  for (let i = 0; i < 40; i++) recordTiming(timings, EVALUATE, i < 37 ? 10 : (options.p95 ?? 41));
  const front = noFrontLimits();
  if (options.refused)
    recordRefusal(front, {
      part: 'head',
      method: 'GET',
      bytes: options.refused,
      status: 414,
      contentType: 'text/html',
    });
  recordPassed(front, { headBytes: options.passed ?? 3000, bodyBytes: 0 });
  const observed = noObservations();
  observeAnswer(
    observed,
    { headers: options.server ? { server: options.server } : {}, version: '1.1' },
    { method: 'GET', sent: { headBytes: options.passed ?? 3000, bodyBytes: 0 } },
  );
  return buildEnvelope({ command: 'conform', target: 'http://127.0.0.1:1', timings, front, observed });
}

test('an envelope built from what a run measured is valid against the schema, and every part says how', () => {
  const built = envelope({ refused: 9000, passed: 7000, server: 'nginx/1.22.1' });
  assert.deepEqual(envelopeSchemaErrors(built), []);
  assert.equal(built.urlLimit.limitBytes, 8192);
  assert.equal(built.urlLimit.longestPassed, 7000);
  assert.deepEqual(built.infrastructure.servers, ['nginx/1.22.1']);
  assert.deepEqual(built.protocol.http, ['HTTP/1.1']);
  for (const part of [built.latency, built.urlLimit, built.scoreTolerance, built.infrastructure, built.protocol])
    assert.ok(part.how.length > 20);
  // A measured rate limit, a learned tolerance, and the schema still holds.
  const observed = noObservations();
  const signal = throttleSignal({ status: 503, headers: { 'content-type': 'text/html' }, body: 'busy' })!;
  observed.rateLimits['/answersearch/v7.0/search'] = {
    path: '/answersearch/v7.0/search',
    operation: 'GET /answersearch/v7.0/search',
    signal,
    rps: 5,
    how: 'measured on purpose',
  };
  const more = buildEnvelope({
    command: 'fuzz',
    target: 't',
    observed,
    notes: [
      'GET /academic/v1.0/similarity: answers differed beyond 1e-9; scores compared within relative 3.2e-7 (100 x the spread)',
    ],
  });
  assert.deepEqual(envelopeSchemaErrors(more), []);
  assert.equal(more.rateLimits[0]?.rps, 5);
  assert.equal(more.rateLimits[0]?.conforms, false);
  assert.equal(more.scoreTolerance.relative, 3.2e-7);
  assert.equal(more.scoreTolerance.learned, true);
  assert.ok(
    envelopeLines(more).some((line) => /^Rate limit of \/answersearch\/v7\.0\/search: about 5 requests\/s/.test(line)),
  );
  assert.deepEqual(envelopeSchemaErrors({ ...more, kgateEnvelope: 2 }).length > 0, true, 'the schema can fail');
});

test('latency figures: samples, p50, p95, p99 and max from the mergeable histograms', () => {
  const timings = {};
  for (let i = 1; i <= 100; i++) recordTiming(timings, EVALUATE, i);
  const [figure] = latencyFigures(timings);
  assert.equal(figure!.samples, 100);
  for (const [value, want] of [
    [figure!.p50Ms, 50],
    [figure!.p95Ms, 95],
    [figure!.p99Ms, 99],
    [figure!.maxMs, 100],
  ] as const)
    assert.ok(Math.abs(value - want) <= want * 0.02, `${value} within 2 % of ${want}`);
});

test('envelope changes: limits that moved, and a p95 only beyond the noise rule', () => {
  const cases = [
    {
      given: [envelope({ refused: 17_000, passed: 15_000 }), envelope({ refused: 9_000, passed: 7_000 })],
      want: ['URL limit 16 KB -> 8 KB'],
    },
    {
      given: [envelope({ p95: 41 }), envelope({ p95: 97 })],
      want: [/^GET \/academic\/v1\.0\/evaluate p95 41(\.\d)? -> 9\d(\.\d)? ms, outside the run-to-run noise/],
    },
    // 41 -> 44 ms: under 5 ms and 10 %, noise.
    { given: [envelope({ p95: 41 }), envelope({ p95: 44 })], want: [] },
    {
      given: [envelope({ server: 'nginx/1.22.1' }), envelope({ server: 'nginx/1.26.0' })],
      want: ['Server nginx/1.22.1 -> nginx/1.26.0'],
    },
    { given: [envelope(), envelope()], want: [] },
  ];
  for (const { given, want } of cases) {
    const texts = envelopeChanges(given[0]!, given[1]!, LATENCY_NOISE).map((change) => change.text);
    assert.equal(texts.length, want.length, texts.join('; '));
    for (const [index, rule] of want.entries()) {
      if (typeof rule === 'string') assert.equal(texts[index], rule);
      else assert.match(texts[index]!, rule);
    }
  }
});

test('a p95 that earlier runs already moved by as much is within the run-to-run noise', () => {
  const series = [envelope({ p95: 40 }), envelope({ p95: 80 }), envelope({ p95: 42 })];
  const spread = latencySpread(series);
  assert.ok(spread[EVALUATE]! >= 0.9);
  assert.deepEqual(envelopeChanges(series[2]!, envelope({ p95: 85 }), { ...LATENCY_NOISE, spread }), []);
  // The history's own reading: the last run against the one before, with the spread of the runs before it.
  const runs = [...series, envelope({ p95: 400 })].map((item, index) => ({
    type: 'run' as const,
    run: `r${index}`,
    at: `2026-11-2${index}T00:00:00Z`,
    requests: 40,
    findings: 0,
    answered: [],
    envelope: item,
  }));
  const changes = historyEnvelopeChanges(runs);
  assert.equal(changes.length, 1);
  assert.match(
    changes[0]!.text,
    /p95 42(\.\d)? -> \d{3}(\.\d)? ms, outside the run-to-run noise \(beyond 10 % and 5 ms, and 3 x the \d+ % earlier runs moved by\)/,
  );
  assert.deepEqual(historyEnvelopeChanges(runs.slice(0, 1)), [], 'one run: nothing to compare');
});

test('bounds of the configuration file: a URL limit under urlLimitMin, a p95 over p95MsMax by operation name', () => {
  const measured = envelope({ refused: 4_500, passed: 4_000, p95: 600 });
  const cases: { given: EnvelopeBounds | undefined; want: RegExp[] }[] = [
    { given: undefined, want: [] },
    { given: { urlLimitMin: 4096 }, want: [] },
    {
      given: { urlLimitMin: 8192 },
      want: [/^urlLimitMin 8,192 bytes: a GET of 4,500 bytes was refused \(414 text\/html/],
    },
    {
      given: { p95MsMax: { evaluate: 500 } },
      want: [/^p95MsMax\.evaluate 500 ms: GET \/academic\/v1\.0\/evaluate p95 \d+(\.\d)? ms over 40 request/],
    },
    { given: { p95MsMax: { evaluateGet: 500, interpret: 1 } }, want: [/^p95MsMax\.evaluateGet 500 ms/] },
    { given: { p95MsMax: { '/academic/v1.0/evaluate': 1000 } }, want: [] },
    { given: { p99MsMax: { [EVALUATE]: 100 } }, want: [/^p99MsMax\.GET \/academic\/v1\.0\/evaluate 100 ms/] },
  ];
  for (const { given, want } of cases) {
    const breaches = envelopeBreaches(measured, given);
    assert.equal(breaches.length, want.length, `${JSON.stringify(given)}: ${breaches.join('; ')}`);
    for (const [index, rule] of want.entries()) assert.match(breaches[index]!, rule);
  }
});
