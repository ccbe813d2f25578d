import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DriftFinding } from '../../drift/findings.ts';
import type { LiveResult } from '../../drift/live.ts';
import { renderPage as renderReportHtml } from '../../page/page.ts';
import { driftPage } from './drift-page.ts';

const OP = 'GET /academic/v1.0/interpret';
const finding = (fingerprint: string, known: boolean): DriftFinding => ({
  fingerprint,
  kind: 'undocumented-property',
  operationId: 'interpretGet',
  operation: OP,
  status: 200,
  path: '$.interpretations[0].logprob',
  normalizedPath: '$.interpretations[].logprob',
  message: 'property not in the spec',
  sample: '-0.6',
  occurrences: 2,
  seenIn: 'interpretGet: success',
  known,
});
const result = (findings: DriftFinding[]): LiveResult => ({
  kind: 'drift-live',
  baseUrl: 'http://127.0.0.1:9/prefix?subscription-key=abc',
  startedAt: '2026-11-24T05:49:47.000Z',
  durationMs: 300,
  findings,
  cases: [
    {
      name: 'interpretGet: success',
      operation: OP,
      status: 200,
      issues: 1,
      durationMs: 12,
      curl: "curl -sS 'http://127.0.0.1:9/i'",
    },
    {
      name: 'hotEvents: success',
      operation: 'GET /eventknowledge/v1.0/hotevents',
      issues: 0,
      error: 'timeout after 10000 ms',
      durationMs: 10_000,
      curl: "curl -sS 'http://127.0.0.1:9/h'",
    },
  ],
  summary: {
    requests: 2,
    findings: findings.length,
    new: findings.filter((item) => !item.known).length,
    known: findings.filter((item) => item.known).length,
    resolved: [],
    transportErrors: 1,
    skipped: 0,
  },
});

test('the drift page: new findings fail it, known ones do not; each links from its cell and carries its curl line', () => {
  const cases: { given: DriftFinding[]; want: { verdict: string; cell: string; section: string } }[] = [
    { given: [finding('a1', false)], want: { verdict: 'fail', cell: 'fail', section: 'findings' } },
    { given: [finding('a1', true)], want: { verdict: 'pass', cell: 'known', section: 'known' } },
  ];
  for (const { given, want } of cases) {
    const page = driftPage(result(given));
    assert.equal(page.verdict, want.verdict);
    assert.equal(page.target, 'http://127.0.0.1:9/prefix?subscription-key=***', 'a key in the URL is masked');
    assert.equal(page.matrix!.cells[OP]!['undocumented-property'], want.cell);
    assert.equal(page.matrix!.cells[OP]!['missing-property'], 'pass');
    const html = renderReportHtml(page);
    assert.match(html, new RegExp(`<td class="${want.cell}"><a href="#f1"`));
    assert.match(
      html,
      new RegExp(`<section id="${want.section}"[^]*<pre id="f1-curl">curl -sS 'http://127.0.0.1:9/i'</pre>`),
    );
    assert.ok(html.includes('hotEvents: success: timeout after 10000 ms'), 'a request without an answer is listed');
  }
});

test('the drift page compares with the previous live run by fingerprint', () => {
  const page = driftPage(result([finding('new1', false), finding('old1', false)]), {
    dir: '/r/drift/20261124T050000Z-aaaa',
    summary: result([finding('old1', false), finding('gone', false)]),
  });
  assert.deepEqual(
    { added: page.changes!.added.length, fixed: page.changes!.fixed.length, still: page.changes!.still },
    { added: 1, fixed: 1, still: 1 },
  );
  assert.equal(page.changes!.previous.href, '../20261124T050000Z-aaaa/report.html');
});
