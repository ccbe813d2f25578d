import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadSpec } from '../openapi/spec.ts';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import { readBaseline, writeBaseline } from './findings.ts';
import { type LiveResult, runLiveDrift } from './live.ts';
import { writeLiveReport } from './report.ts';
import { levelOf } from './schema.ts';

interface CatalogueEntry {
  name: string;
  deviation: 'forbidden' | 'drift' | 'hostile' | 'real' | 'release';
  operations: string[];
}

let server: ReferenceServer;
let catalogue: CatalogueEntry[];
let dir: string;

const live = (path = '', extra: Partial<Parameters<typeof runLiveDrift>[0]> = {}) =>
  runLiveDrift({
    baseUrl: `${server.url}${path}`,
    keys: { full: server.keys.full, exhausted: server.keys.exhausted },
    timeoutMs: 5000,
    ...extra,
  });

const brief = (result: LiveResult) =>
  result.findings.map(
    (finding) => `${finding.kind} ${finding.operationId} ${finding.status} ${finding.normalizedPath}`,
  );

describe('drift live against the reference server', () => {
  before(async () => {
    server = await startReferenceServer({ quiet: true, papers: 2000 });
    catalogue = (await (await fetch(`${server.url}/faults`)).json()) as CatalogueEntry[];
    dir = mkdtempSync(join(tmpdir(), 'kgate-drift-'));
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the clean reference server shows no drift', async () => {
    const result = await live();
    assert.deepEqual(brief(result), [], 'the clean server must match the spec everywhere the battery looks');
    assert.ok(
      result.summary.requests >= 50 && result.summary.requests <= 70,
      `battery sent ${result.summary.requests} requests`,
    );
    assert.equal(result.summary.transportErrors, 0);
    const operations = new Set(result.cases.filter((item) => item.status === 200).map((item) => item.operation));
    assert.equal(operations.size, 13, `every operation answered 200 at least once: ${[...operations].join(', ')}`);
  });

  test('every drift fault of the catalogue is reported on one of its operations', async () => {
    const drift = catalogue.filter((fault) => fault.deviation === 'drift');
    assert.ok(drift.length >= 3, 'the catalogue lists drift faults');
    for (const fault of drift) {
      const result = await live(`/faults/${fault.name}`);
      const hits = result.findings.filter((finding) => fault.operations.includes(finding.operationId));
      assert.ok(
        hits.length > 0,
        `${fault.name}: no finding on ${fault.operations.join(', ')}; got ${brief(result).join('; ')}`,
      );
    }
  });

  test('every real fault of the catalogue is reported on one of its operations', async () => {
    const real = catalogue.filter((fault) => fault.deviation === 'real');
    assert.ok(real.length >= 8, `the catalogue lists the real family (${real.length})`);
    for (const fault of real) {
      const result = await live(`/faults/${fault.name}`);
      const hits = result.findings.filter((finding) => fault.operations.includes(finding.operationId));
      assert.ok(
        hits.length > 0,
        `${fault.name}: no finding on ${fault.operations.join(', ')}; got ${brief(result).join('; ')}`,
      );
      assert.ok(result.summary.requests <= 70, `${fault.name}: the battery stays bounded (${result.summary.requests})`);
    }
  });

  // The new answerType is a new value only once the spec lists the known answer types.
  const rankingItem = (loadSpec().components as { schemas: Record<string, { properties: Record<string, object> }> })
    .schemas.RankingItem;
  const answerTypesListed = Boolean(rankingItem && 'x-kgate-known-values' in (rankingItem.properties.answerType ?? {}));
  // A documented property real answers lacked is 'missing-property' while the spec requires it,
  // 'missing-expected-property' once the spec marks it x-kgate-level: expected (and not required).
  const schemas = (loadSpec().components as { schemas: Record<string, { properties: Record<string, unknown> }> })
    .schemas;
  const missing = (schema: string, property: string) =>
    levelOf(loadSpec(), schemas[schema]?.properties[property]) === 'expected'
      ? 'missing-expected-property'
      : 'missing-property';
  const CASES: Array<{ given: string; want: string[] }> = [
    { given: 'interpret-extra-logprob', want: ['undocumented-property interpretGet 200 $.interpretations[].logprob'] },
    { given: 'evaluate-extra-timed-out', want: ['undocumented-property evaluateGet 200 $.timed_out'] },
    {
      given: 'answersearch-webpage-extra-property',
      want: ['undocumented-property answerSearch 200 $.webPages.value[].isNavigational'],
    },
    {
      given: 'answersearch-new-contractual-rule-type',
      want: ['new-type-value answerSearch 200 $.entities.value[].contractualRules[]._type'],
    },
    {
      given: 'answersearch-ranking-news-answer-type',
      want: [
        'undocumented-property answerSearch 200 $.news',
        ...(answerTypesListed ? ['new-enum-value answerSearch 200 $.rankingResponse.sidebar.items[].answerType'] : []),
      ],
    },
    { given: 'urlpreview-extra-field', want: ['undocumented-property urlPreview 200 $.isFamilyFriendly'] },
    { given: 'hotevents-extra-field', want: ['undocumented-property hotEvents 200 $.value[].hotness'] },
    { given: 'answersearch-webpage-url-missing', want: ['missing-property answerSearch 200 $.webPages.value[].url'] },
    {
      given: 'answersearch-total-matches-as-string',
      want: ['type-changed answerSearch 200 $.webPages.totalEstimatedMatches'],
    },
    { given: 'hotevents-document-count-as-string', want: ['type-changed hotEvents 200 $.value[].documentCount'] },
    { given: 'hotevents-top-document-missing', want: ['missing-property hotEvents 200 $.value[].topDocument'] },
    {
      given: 'answersearch-entity-bingid-not-uuid',
      want: ['format-changed answerSearch 200 $.entities.value[].bingId'],
    },
    { given: 'evaluate-year-as-string', want: ['type-changed evaluateGet 200 $.entities[].Y'] },
    { given: 'interpret-prob-missing', want: ['missing-property interpretGet 200 $.interpretations[].prob'] },
    { given: 'urlpreview-content-type-html', want: ['undocumented-media-type urlPreview 200 $'] },
    {
      given: 'real-aborted-omitted',
      want: [
        'undocumented-property interpretGet 200 $.timed_out',
        'undocumented-property interpretPost 200 $.timed_out_count',
        `${missing('InterpretResponse', 'aborted')} interpretGet 200 $.aborted`,
        `${missing('EvaluateResponse', 'aborted')} evaluateGet 200 $.aborted`,
        `${missing('HistogramResponse', 'aborted')} calchistogramPost 200 $.aborted`,
      ],
    },
    {
      given: 'real-score-fields',
      want: [
        'undocumented-property interpretGet 200 $.interpretations[].logprob',
        'undocumented-property evaluatePost 200 $.entities[].logprob',
        'undocumented-property calchistogramGet 200 $.histograms[].histogram[].logprob',
      ],
    },
    {
      given: 'real-facts-minimal',
      want: [
        `${missing('FactsAnswer', 'contractualRules')} answerSearch 200 $.facts.contractualRules`,
        `${missing('FactsAnswer', 'attributions')} answerSearch 200 $.facts.attributions`,
        `${missing('RankingResponse', 'sidebar')} answerSearch 200 $.rankingResponse.sidebar`,
      ],
    },
    {
      given: 'real-ranking-id-path',
      want: ['ranking-id-by-fragment answerSearch 200 $.rankingResponse.mainline.items[].value.id'],
    },
    {
      given: 'real-echo-normalized',
      want: ['echo-differs interpretGet 200 $.query', 'echo-differs interpretPost 200 $.query'],
    },
    {
      given: 'real-exponent-numbers',
      want: [
        'exponent-number interpretGet 200 $.interpretations[].prob',
        'exponent-number evaluateGet 200 $.entities[].prob',
        'exponent-number calchistogramPost 200 $.histograms[].histogram[].prob',
      ],
    },
    {
      given: 'real-headers',
      want: [
        'undocumented-header evaluateGet 200 header:x-powered-by',
        'undocumented-header similarityPost 200 header:access-control-allow-origin',
        'undocumented-header answerSearch 200 header:bingapis-traceid',
        'undocumented-header urlPreview 200 header:x-msedge-ref',
      ],
    },
    {
      given: 'real-profile',
      want: [
        'undocumented-property interpretGet 200 $.timed_out',
        'undocumented-property evaluateGet 200 $.entities[].logprob',
        'exponent-number evaluateGet 200 $.entities[].prob',
        'echo-differs interpretPost 200 $.query',
        'ranking-id-by-fragment answerSearch 200 $.rankingResponse.mainline.items[].value.id',
        `${missing('FactsAnswer', 'attributions')} answerSearch 200 $.facts.attributions`,
        'undocumented-header hotEvents 200 header:x-powered-by',
      ],
    },
  ];
  for (const { given, want } of CASES) {
    test(`fault ${given} is found at the right path`, async () => {
      assert.ok(
        catalogue.some((fault) => fault.name === given),
        `the catalogue has no fault ${given}: a defect of the test setup`,
      );
      const got = brief(await live(`/faults/${given}`));
      for (const line of want) assert.ok(got.includes(line), `want ${line}; got ${got.join('; ')}`);
    });
  }

  test('a baseline round trip: recorded findings are known on the next run, other drift is new', async () => {
    const file = join(dir, 'baseline.json');
    const first = await live('/faults/hotevents-extra-field');
    assert.ok(first.summary.new > 0);
    writeBaseline(file, first.findings);
    const again = await live('/faults/hotevents-extra-field', { baseline: readBaseline(file) });
    assert.equal(again.summary.new, 0, 'nothing new on a re-run');
    assert.equal(again.summary.known, first.summary.findings);
    assert.deepEqual(
      again.findings.map((finding) => finding.fingerprint),
      first.findings.map((finding) => finding.fingerprint),
      'fingerprints are stable across runs',
    );
    const other = await live('/faults/urlpreview-extra-field', { baseline: readBaseline(file) });
    assert.ok(other.summary.new > 0, 'a different drift is new against the baseline');
    assert.ok(other.summary.resolved.length > 0, 'the baseline finding no longer seen is listed as resolved');
  });

  test('the report is written as drift.json and drift.md without the key', async () => {
    const result = await live('/faults/urlpreview-extra-field');
    const paths = writeLiveReport(result, join(dir, 'run'));
    const json = readFileSync(paths.json, 'utf8');
    const markdown = readFileSync(paths.markdown, 'utf8');
    assert.equal(JSON.parse(json).findings.length, result.findings.length);
    assert.match(markdown, /\$\.isFamilyFriendly/);
    for (const text of [json, markdown]) assert.equal(text.includes(server.keys.full), false, 'key never written');
  });
});
