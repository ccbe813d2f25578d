import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startReferenceServer } from '../../reference/index.ts';
import { Api, type ApiSettings, type CallOptions, op } from '../api.ts';
import { answerReadBy, type JudgedAnswer, judgeAnswer } from './answers.ts';
import { PROPERTY_CHECKS } from './index.ts';

const EVALUATE = 'GET /academic/v1.0/evaluate';
const answer = (overrides: Partial<JudgedAnswer> = {}): JudgedAnswer => ({
  operationId: 'evaluateGet',
  operation: EVALUATE,
  params: { expr: 'Y>1900', attributes: 'Id,Y', count: '2' },
  valid: true,
  status: 200,
  json: { expr: 'Y>1900', entities: [{ Id: 1, Y: 2000, Ti: 'a title', prob: 0.1 }] },
  curl: "curl -sS -H 'Ocp-Apim-Subscription-Key: ***' 'http://127.0.0.1/academic/v1.0/evaluate?expr=Y%3E1900'",
  excerpt: '{"expr":"Y>1900"...',
  ...overrides,
});
const all = () => true;

test('judgeAnswer judges only answers to requests meant to be valid, under each property id', () => {
  const cases: { given: string; answer: JudgedAnswer; enabled?: (check: string) => boolean; want: string[] }[] = [
    { given: 'a 200 with an attribute not asked for', answer: answer(), want: ['attributes-are-honoured'] },
    { given: 'the same answer to an error-intent request', answer: answer({ valid: false }), want: [] },
    { given: 'the same body with a 4xx', answer: answer({ status: 400 }), want: [] },
    { given: 'a request sent raw (parameters unknown)', answer: answer({ params: undefined }), want: [] },
    {
      given: 'the property excluded',
      answer: answer(),
      enabled: (check) => check !== 'attributes-are-honoured',
      want: [],
    },
    {
      given: 'a page larger than count and an echo that differs',
      answer: answer({
        params: { expr: 'Y>1900', attributes: 'Id', count: '1' },
        json: { expr: 'Y>1901', entities: [{ Id: 1 }, { Id: 2 }] },
      }),
      want: ['paging-respects-size', 'request-is-echoed'],
    },
  ];
  for (const { given, answer: a, enabled, want } of cases) {
    const found = judgeAnswer(a, enabled ?? all);
    assert.deepEqual(found.map((finding) => finding.check).sort(), want, given);
    for (const finding of found) {
      assert.equal(finding.operation, EVALUATE, `${given}: on the operation that answered`);
      assert.equal(finding.origin, 'check', given);
      assert.equal(finding.via, 'property', given);
      assert.match(finding.curl ?? '', /\*\*\*/, `${given}: the curl line masks the key`);
    }
  }
});

test('answerReadBy names the invariants an answer gave something to judge', () => {
  const cases: { given: string; answer: JudgedAnswer; want: string[] }[] = [
    {
      given: 'a full page with attributes and an echo',
      answer: answer({ params: { expr: 'Y>1900', attributes: 'Id', count: '1' } }),
      want: ['attributes-are-honoured', 'paging-respects-size', 'request-is-echoed', 'results-match-expr'],
    },
    {
      given: 'a page not full: a size limit cannot show',
      answer: answer(),
      want: ['attributes-are-honoured', 'request-is-echoed', 'results-match-expr'],
    },
    {
      given: 'no parameter the invariants read',
      answer: answer({ params: { expr: 'Y>1900' } }),
      want: ['request-is-echoed', 'results-match-expr'],
    },
    { given: 'an error-intent request', answer: answer({ valid: false }), want: [] },
    { given: 'a 4xx', answer: answer({ status: 400 }), want: [] },
  ];
  for (const { given, answer: a, want } of cases) assert.deepEqual(answerReadBy(a, all).sort(), want, given);
});

test('a warning-level property stays a warning unless strict', () => {
  const cases = [
    { strict: false, want: 'warn' },
    { strict: true, want: undefined },
  ];
  for (const { strict, want } of cases) {
    const [finding] = judgeAnswer(
      answer({
        operationId: 'hotEvents',
        operation: 'GET /eventknowledge/v1.0/hotevents',
        params: { date: '2021-03-15' },
        json: { value: [{ eventId: 'not-hex', from: '2021-03-15T01:00:00Z', to: '2021-03-15T02:00:00Z' }] },
      }),
      all,
      strict,
    );
    assert.equal(finding?.check, 'event-ids-are-32-hex');
    assert.equal(finding?.level, want, `strict ${strict}`);
  }
});

let server: Awaited<ReturnType<typeof startReferenceServer>>;
before(async () => {
  server = await startReferenceServer({ quiet: true });
});
after(async () => {
  await server?.close();
});

test('the request fixture judges valid requests by the properties of enabled checks, not its own test check', async () => {
  const faulty = `${server.url}/faults/evaluate-large-page-attributes-ignored`;
  const large: CallOptions = { params: { expr: 'Y>1900', attributes: 'Id,Y', count: '1000' } };
  const cases: {
    given: string;
    baseUrl?: string;
    settings?: Partial<ApiSettings>;
    ownCheck?: string;
    options?: CallOptions;
    want: string[];
  }[] = [
    { given: 'a large page of the faulty server', want: ['attributes-are-honoured'] },
    { given: 'the clean server', baseUrl: server.url, want: [] },
    { given: 'a page the fault leaves alone', options: { params: { ...large.params!, count: '5' } }, want: [] },
    { given: 'an error-intent request', options: { ...large, intent: 'error' }, want: [] },
    { given: 'the test of the check itself (it judges its answers)', ownCheck: 'attributes-are-honoured', want: [] },
    { given: 'the check not selected', settings: { propertyChecks: new Set(['paging-respects-size']) }, want: [] },
    { given: 'no property checks', settings: { propertyChecks: undefined }, want: [] },
    {
      given: 'discovery (judge: false), an answer matching the spec',
      settings: { judge: false },
      want: ['attributes-are-honoured'],
    },
  ];
  for (const { given, baseUrl, settings, ownCheck, options, want } of cases) {
    const api = new Api({
      baseUrl: baseUrl ?? faulty,
      keys: { full: server.keys.full },
      timeoutMs: 10_000,
      maxBytes: 8 * 1024 * 1024,
      disabledChecks: new Set(),
      propertyChecks: PROPERTY_CHECKS,
      ...settings,
    });
    api.ownCheck = ownCheck;
    const response = await api.call(op('evaluateGet'), options ?? large);
    assert.equal(response.status, 200, given);
    const found = api.findings.filter((finding) => finding.via === 'property');
    assert.deepEqual(
      found.map((finding) => `${finding.check} on ${finding.operation}`),
      want.map((check) => `${check} on ${EVALUATE}`),
      given,
    );
    for (const finding of found) assert.ok(!finding.curl?.includes(server.keys.full), `${given}: key masked`);
  }
});
