import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OPERATIONS } from '../openapi/spec.ts';
import { echoIssues, rankingIdIssues } from './consistency.ts';

const op = (id: string) => OPERATIONS.find((operation) => operation.operationId === id)!;

describe('drift consistency: echoes', () => {
  const CASES: { given: { operationId: string; sent: Record<string, string>; body: unknown }; want: string[] }[] = [
    {
      given: { operationId: 'interpretGet', sent: { query: 'papers by x' }, body: { query: 'papers by x' } },
      want: [],
    },
    {
      given: { operationId: 'interpretPost', sent: { query: 'Papers by X!' }, body: { query: 'papers by x' } },
      want: ['$.query'],
    },
    { given: { operationId: 'evaluateGet', sent: { expr: 'Y>2012' }, body: { expr: 'y>2012' } }, want: ['$.expr'] },
    { given: { operationId: 'calchistogramPost', sent: { expr: 'Y>2012' }, body: { expr: 'Y>2012' } }, want: [] },
    {
      given: {
        operationId: 'answerSearch',
        sent: { q: 'Knowledge Graph', mkt: 'en-US' },
        body: { queryContext: { originalQuery: 'knowledge graph' } },
      },
      want: ['$.queryContext.originalQuery'],
    },
    { given: { operationId: 'evaluateGet', sent: {}, body: { expr: 'Y>2012' } }, want: [] },
    { given: { operationId: 'evaluateGet', sent: { expr: 'Y>2012' }, body: { entities: [] } }, want: [] },
    { given: { operationId: 'urlPreview', sent: { q: 'https://a.test/' }, body: { url: 'https://a.test' } }, want: [] },
  ];
  for (const { given, want } of CASES) {
    test(`${given.operationId} ${JSON.stringify(given.sent)}: ${want.join(', ') || 'same'}`, () => {
      const issues = echoIssues(op(given.operationId), given.sent, given.body);
      assert.deepEqual(
        issues.map((issue) => issue.path),
        want,
        'echo findings',
      );
      for (const issue of issues) assert.match(issue.message, /sent ".*", received ".*"/, 'both values in the message');
    });
  }
});

describe('drift consistency: ranking ids', () => {
  const BASE = 'https://api.test/api/v7/';
  const body = (rankingIds: string[]) => ({
    webPages: { value: [{ id: `${BASE}#WebPages.0` }, { id: `${BASE}#WebPages.1` }] },
    facts: { id: `${BASE}#Facts` },
    rankingResponse: {
      mainline: { items: rankingIds.map((id) => ({ answerType: 'X', value: { id } })) },
      sidebar: { items: [{ answerType: 'Entities' }] },
    },
  });
  const CASES: { given: string[]; want: string[] }[] = [
    { given: [`${BASE}#Facts`, `${BASE}#WebPages.1`], want: [] },
    {
      given: [`${BASE}knowledge/#Facts`, `${BASE}#WebPages.0`],
      want: ['$.rankingResponse.mainline.items[0].value.id'],
    },
    {
      given: [`${BASE}#WebPages.0`, 'https://elsewhere.test/#WebPages.1'],
      want: ['$.rankingResponse.mainline.items[1].value.id'],
    },
    { given: [`${BASE}#News`, `${BASE}nothing`], want: [] },
  ];
  for (const { given, want } of CASES) {
    test(`${given.join(', ')}: ${want.length} by fragment`, () => {
      const issues = rankingIdIssues(body(given));
      assert.deepEqual(
        issues.map((issue) => [issue.kind, issue.path]),
        want.map((path) => ['ranking-id-by-fragment', path]),
        'items that resolve only by their fragment',
      );
    });
  }

  test('a body without a ranking has no ranking findings', () => {
    assert.deepEqual(rankingIdIssues({ facts: { id: 'x#Facts' } }), [], 'nothing to resolve');
  });
});
