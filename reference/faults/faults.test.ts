import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { type ReferenceServer, startReferenceServer } from '../index.ts';
import { ROUTE_BY_ID } from '../routes.ts';
import { classFaults } from './classes.ts';
import { FAULTS } from './index.ts';

// Every forbidden, drift and release fault is proven over real HTTP: the faulty base_url shows the
// deviation and the clean one does not. Hostile faults have their own file (hostile.test.ts), and
// so does the real family (real.test.ts).

type Role = 'full' | 'academicOnly' | 'exhausted' | 'none' | 'wrong';

/** One request: a path under the base_url, its query or form, and which key to send. */
interface Req {
  path: string;
  query?: Record<string, string>;
  form?: Record<string, string>;
  key?: Role;
}

/** A parsed answer body: predicates read arbitrary paths, and a wrong path just makes them false. */
// biome-ignore lint/suspicious/noExplicitAny: predicates over untyped JSON read best with optional chaining
type Json = any;

/** What a case looks at in an answer. */
interface Res {
  status: number;
  type: string;
  text: string;
  json: Json;
  ms: number;
}

/** A fault, the requests that expose it, and the property its answers show (and the clean ones do not). */
interface Case {
  fault: string;
  run(base: string): Promise<Res[]>;
  shows(res: Res[]): boolean;
}

const A = '/academic/v1.0';
const ANSWER = '/answersearch/v7.0/search';
const PREVIEW = '/urlpreview/v7.0/search';
const EK = '/eventknowledge/v1.0';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

let server: ReferenceServer;
/** A second server with a low rate limit, for the 429 faults (its buckets refill in a second). */
let limited: ReferenceServer;
const sample = { author: '', query: '', prefixQuery: '', expr: '', narrowExpr: '', eventId: '' };

async function send(base: string, req: Req, keys = server.keys, timeoutMs?: number): Promise<Res> {
  const url = new URL(base + req.path);
  for (const [name, value] of Object.entries(req.query ?? {})) url.searchParams.set(name, value);
  const role = req.key ?? 'full';
  const headers: Record<string, string> = {};
  if (role === 'wrong') headers['Ocp-Apim-Subscription-Key'] = 'not-a-key-0000';
  else if (role !== 'none') headers['Ocp-Apim-Subscription-Key'] = keys[role];
  let body: string | undefined;
  if (req.form) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(req.form).toString();
  }
  const started = performance.now();
  const signal = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
  let res: Response;
  try {
    res = await fetch(url, { method: req.form ? 'POST' : 'GET', headers, body, signal });
  } catch (error) {
    // No answer within timeoutMs: status 0 stands for a request that hung.
    if (signal?.aborted) return { status: 0, type: '', text: '', json: undefined, ms: performance.now() - started };
    throw error;
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    text,
    json,
    ms: performance.now() - started,
  };
}

/** A case whose requests run one after the other. */
function seq(fault: string, reqs: () => Req[], shows: (res: Res[]) => boolean): Case {
  return {
    fault,
    async run(base) {
      const out: Res[] = [];
      for (const req of reqs()) out.push(await send(base, req));
      return out;
    },
    shows,
  };
}

const ids = (res: Res, list = 'entities') => ((res.json?.[list] ?? []) as { Id?: number }[]).map((e) => e.Id);
const nonIncreasing = (values: number[]) => values.every((v, i) => i === 0 || values[i - 1]! >= v);
const nonDecreasing = (values: number[]) => values.every((v, i) => i === 0 || values[i - 1]! <= v);
const pageUrls = (res: Res) => ((res.json?.webPages?.value ?? []) as { url?: string }[]).map((p) => p.url);
const eventIds = (res: Res) => ((res.json?.value ?? []) as { eventId?: string }[]).map((e) => e.eventId);
const interpretations = (res: Res) => (res.json?.interpretations ?? []) as Record<string, Json>[];
const histogram = (res: Res, attribute: string) =>
  ((res.json?.histograms ?? []) as Record<string, Json>[]).find((h) => h.attribute === attribute);
const rankingItems = (res: Res) =>
  ['mainline', 'sidebar'].flatMap((s) => (res.json?.rankingResponse?.[s]?.items ?? []) as Record<string, Json>[]);
const differ = (a: unknown, b: unknown) => JSON.stringify(a) !== JSON.stringify(b);

const interpret = (query: Record<string, string>): Req => ({ path: `${A}/interpret`, query });
const evaluate = (query: Record<string, string>): Req => ({ path: `${A}/evaluate`, query });
const histo = (query: Record<string, string>): Req => ({ path: `${A}/calchistogram`, query });
const similarity = (s1: string, s2: string): Req => ({ path: `${A}/similarity`, query: { s1, s2 } });
const answer = (query: Record<string, string>, key?: Role): Req => ({
  path: ANSWER,
  query: { mkt: 'en-US', ...query },
  key,
});
const hot = (query: Record<string, string> = {}, key?: Role): Req => ({
  path: `${EK}/hotevents`,
  query: { date: '2026-11-01', ...query },
  key,
});
const related = (query: Record<string, string> = {}): Req => ({
  path: `${EK}/relatedevents`,
  query: { wikipediaid: 'Barack_Obama', ...query },
});
const documents = (eventId: string, query: Record<string, string> = {}): Req => ({
  path: `${EK}/events/${eventId}/documents`,
  query,
});
const asPost = (req: Req): Req => ({ path: req.path, form: req.query, key: req.key });
/** An Or of 200 ids: an expr of about 2,400 characters. */
const LONG_OR = `Or(${Array.from({ length: 200 }, (_, i) => `Id=${1_000_000 + i}`).join(',')})`;
/** A second long text, of other words than bigText's. */
const LONG_TEXT = 'graph retrieval indexing '.repeat(50);
const bigText = (bytes: number) => 'graph neural networks '.repeat(Math.ceil(bytes / 22)).slice(0, bytes);

const CASES: Case[] = [
  // academic: interpret
  seq(
    'interpret-prob-missing',
    () => [interpret({ query: sample.query })],
    ([r]) => interpretations(r!).some((i) => !('prob' in i)),
  ),
  seq(
    'interpret-not-sorted-by-prob',
    () => [interpret({ query: sample.prefixQuery, complete: '1', count: '20' })],
    ([r]) => !nonIncreasing(interpretations(r!).map((i) => i.prob)),
  ),
  seq(
    'interpret-count-ignored',
    () => [interpret({ query: sample.prefixQuery, complete: '1', count: '1' })],
    ([r]) => interpretations(r!).length > 1,
  ),
  seq(
    'interpret-offset-ignored',
    () => [
      interpret({ query: sample.prefixQuery, complete: '1', count: '1', offset: '1' }),
      interpret({ query: sample.prefixQuery, complete: '1', count: '2' }),
    ],
    ([page, full]) => differ(interpretations(page!)[0], interpretations(full!)[1]),
  ),
  seq(
    'interpret-query-not-echoed',
    () => [interpret({ query: sample.query })],
    ([r]) => r!.json.query !== sample.query,
  ),
  {
    fault: 'interpret-output-rejected-by-evaluate',
    async run(base) {
      const first = await send(base, interpret({ query: sample.query }));
      const outputs = interpretations(first).map((i) => i.rules[0].output.value as string);
      const checks = await Promise.all(outputs.map((expr) => send(base, evaluate({ expr }))));
      return [first, ...checks];
    },
    shows: ([, ...checks]) => checks.some((r) => r.status !== 200),
  },
  seq(
    'interpret-timeout-ignored',
    () => [interpret({ query: sample.query, timeout: '1' })],
    ([r]) => r!.ms > 2000 && r!.json.aborted === false,
  ),
  seq(
    'interpret-aborted-not-boolean',
    () => [interpret({ query: sample.query })],
    ([r]) => typeof r!.json.aborted !== 'boolean',
  ),
  seq(
    'interpret-post-ignores-offset',
    () => {
      const get = interpret({ query: sample.query, count: '2', offset: '1' });
      return [get, asPost(get)];
    },
    ([get, post]) => differ(get!.json, post!.json),
  ),
  // academic: evaluate
  seq(
    'evaluate-entity-prob-missing',
    () => [evaluate({ expr: sample.expr, attributes: 'Ti' })],
    ([r]) => (r!.json.entities as object[]).some((e) => !('prob' in e)),
  ),
  seq(
    'evaluate-year-as-string',
    () => [evaluate({ expr: sample.expr, attributes: 'Y' })],
    ([r]) => (r!.json.entities as { Y: unknown }[]).some((e) => typeof e.Y === 'string'),
  ),
  seq(
    'evaluate-offset-off-by-one',
    () => [
      evaluate({ expr: sample.expr, count: '2', offset: '2' }),
      evaluate({ expr: sample.expr, count: '4', offset: '0' }),
    ],
    ([page, full]) => differ(ids(page!), ids(full!).slice(2, 4)),
  ),
  seq(
    'evaluate-count-ignored',
    () => [evaluate({ expr: sample.expr, count: '2' })],
    ([r]) => ids(r!).length > 2,
  ),
  seq(
    'evaluate-orderby-ignored',
    () => [evaluate({ expr: sample.narrowExpr, count: '1000', orderby: 'Y:asc', attributes: 'Y' })],
    ([r]) => !nonDecreasing((r!.json.entities as { Y: number }[]).map((e) => e.Y)),
  ),
  seq(
    'evaluate-orderby-reversed',
    () => [evaluate({ expr: sample.narrowExpr, count: '1000', orderby: 'Y:asc', attributes: 'Y' })],
    ([r]) => !nonDecreasing((r!.json.entities as { Y: number }[]).map((e) => e.Y)),
  ),
  seq(
    'evaluate-attributes-ignored',
    () => [evaluate({ expr: sample.expr, attributes: 'Ti' })],
    ([r]) => (r!.json.entities as object[]).some((e) => Object.keys(e).some((k) => k !== 'Ti' && k !== 'prob')),
  ),
  seq(
    'evaluate-attributes-case-insensitive',
    () => [evaluate({ expr: sample.expr, attributes: 'ti' })],
    ([r]) => ((r!.json?.entities ?? []) as object[]).some((e) => 'Ti' in e),
  ),
  seq(
    'evaluate-expr-not-echoed',
    () => [evaluate({ expr: sample.expr })],
    ([r]) => r!.json.expr !== sample.expr,
  ),
  seq(
    'evaluate-aborted-as-string',
    () => [evaluate({ expr: sample.expr })],
    ([r]) => r!.json.aborted === 'false',
  ),
  seq(
    'evaluate-post-ignores-offset',
    () => {
      const get = evaluate({ expr: sample.expr, count: '2', offset: '2' });
      return [get, asPost(get)];
    },
    ([get, post]) => differ(ids(get!), ids(post!)),
  ),
  // academic: calchistogram
  seq(
    'calchistogram-not-sorted-by-count',
    () => [histo({ expr: sample.expr, attributes: 'Y', count: '50' })],
    ([r]) => !nonIncreasing((histogram(r!, 'Y')?.histogram ?? []).map((e: { count: number }) => e.count)),
  ),
  seq(
    'calchistogram-num-entities-off-by-one',
    () => [histo({ expr: sample.narrowExpr, attributes: 'Y' }), evaluate({ expr: sample.narrowExpr, count: '1000' })],
    ([h, e]) => h!.json.num_entities !== ids(e!).length,
  ),
  seq(
    'calchistogram-total-count-off-by-one',
    () => [histo({ expr: sample.narrowExpr, attributes: 'Y', count: '1000' })],
    ([r]) => histogram(r!, 'Y')?.total_count !== r!.json.num_entities,
  ),
  seq(
    'calchistogram-distinct-values-off-by-one',
    () => [histo({ expr: sample.narrowExpr, attributes: 'Y', count: '1000' })],
    ([r]) => histogram(r!, 'Y')?.distinct_values !== histogram(r!, 'Y')?.histogram.length,
  ),
  seq(
    'calchistogram-count-as-string',
    () => [histo({ expr: sample.expr, attributes: 'Y' })],
    ([r]) => histogram(r!, 'Y')?.histogram.some((e: { count: unknown }) => typeof e.count === 'string'),
  ),
  seq(
    'calchistogram-expr-not-echoed',
    () => [histo({ expr: sample.expr, attributes: 'Y' })],
    ([r]) => r!.json.expr !== sample.expr,
  ),
  seq(
    'calchistogram-count-ignored',
    () => [histo({ expr: sample.expr, attributes: 'Y', count: '1' })],
    ([r]) => histogram(r!, 'Y')?.histogram.length > 1,
  ),
  seq(
    'calchistogram-post-ignores-count',
    () => {
      const get = histo({ expr: sample.expr, attributes: 'Y', count: '1' });
      return [get, asPost(get)];
    },
    ([get, post]) => differ(get!.json, post!.json),
  ),
  seq(
    'interpret-missing-query-accepted',
    () => [interpret({ complete: '1' })],
    ([r]) => r!.status === 200,
  ),
  seq(
    'evaluate-invalid-count-accepted',
    () => [evaluate({ expr: sample.expr, count: '-1' })],
    ([r]) => r!.status === 200,
  ),
  seq(
    'interpret-401-wrong-code',
    () => [{ ...interpret({ query: sample.query }), key: 'wrong' }],
    ([r]) => r!.status === 401 && r!.json.error.code !== 'Unspecified',
  ),
  seq(
    'academic-400-code-not-bad-argument',
    () => [evaluate({ attributes: 'Ti' })],
    ([r]) => r!.status === 400 && r!.json?.error?.code !== 'Bad Argument',
  ),
  seq(
    'academic-400-message-only',
    () => [histo({ attributes: 'Y' })],
    ([r]) => r!.status === 400 && typeof r!.json?.error !== 'object',
  ),
  seq(
    'evaluate-exhausted-key-401',
    () => [{ ...evaluate({ expr: sample.expr }), key: 'exhausted' }],
    ([r]) => r!.status === 401,
  ),
  // similarity
  seq(
    'similarity-asymmetric',
    () => [
      similarity('neural networks for vision', 'graph databases'),
      similarity('graph databases', 'neural networks for vision'),
    ],
    ([ab, ba]) => Math.abs(ab!.json - ba!.json) > 1e-9,
  ),
  seq(
    'similarity-out-of-range',
    () => [similarity('neural networks', 'neural networks for vision')],
    ([r]) => typeof r!.json === 'number' && Math.abs(r!.json) > 1,
  ),
  seq(
    'similarity-self-not-one',
    () => [similarity('neural networks for vision', 'neural networks for vision')],
    ([r]) => Math.abs(r!.json - 1) > 1e-9,
  ),
  seq(
    'similarity-post-differs',
    () => {
      const get = similarity('neural networks', 'neural networks for computer vision and graphs');
      return [get, asPost(get)];
    },
    ([get, post]) => get!.json !== post!.json,
  ),
  seq(
    'similarity-as-string',
    () => [similarity('neural networks', 'graph databases')],
    ([r]) => typeof r!.json === 'string',
  ),
  seq(
    'similarity-no-body-limit',
    () => [{ path: `${A}/similarity`, form: { s1: bigText(2 * 1024 * 1024), s2: 'graph' } }],
    ([r]) => r!.status !== 400,
  ),
  seq(
    'similarity-body-limit-too-small',
    () => [{ path: `${A}/similarity`, form: { s1: bigText(300 * 1024), s2: 'graph' } }],
    ([r]) => r!.status === 400,
  ),
  seq(
    'similarity-body-limit-413',
    () => [{ path: `${A}/similarity`, form: { s1: bigText(1100 * 1024), s2: 'graph' } }],
    ([r]) => r!.status === 413,
  ),
  seq(
    'similarity-body-limit-500',
    () => [{ path: `${A}/similarity`, form: { s1: bigText(1100 * 1024), s2: 'graph' } }],
    ([r]) => r!.status === 500,
  ),
  // answer search
  seq(
    'answersearch-webpage-url-missing',
    () => [answer({ q: 'jazz history' })],
    ([r]) => pageUrls(r!).some((url) => url === undefined),
  ),
  seq(
    'answersearch-total-matches-as-string',
    () => [answer({ q: 'jazz history' })],
    ([r]) => typeof r!.json.webPages.totalEstimatedMatches === 'string',
  ),
  seq(
    'answersearch-offset-off-by-one',
    () => [answer({ q: 'jazz history', count: '2', offset: '2' }), answer({ q: 'jazz history', count: '4' })],
    ([page, full]) => differ(pageUrls(page!), pageUrls(full!).slice(2, 4)),
  ),
  seq(
    'answersearch-offset-ignored',
    () => [answer({ q: 'jazz history', count: '2', offset: '2' }), answer({ q: 'jazz history', count: '4' })],
    ([page, full]) => differ(pageUrls(page!), pageUrls(full!).slice(2, 4)),
  ),
  seq(
    'answersearch-count-ignored',
    () => [answer({ q: 'jazz history', count: '2' })],
    ([r]) => pageUrls(r!).length > 2,
  ),
  seq(
    'answersearch-invalid-offset-accepted',
    () => [answer({ q: 'jazz history', offset: '-1' })],
    ([r]) => r!.status === 200,
  ),
  seq(
    'answersearch-missing-mkt-accepted',
    () => [{ path: ANSWER, query: { q: 'jazz history' } }],
    ([r]) => r!.status === 200,
  ),
  seq(
    'answersearch-400-no-parameter',
    () => [{ path: ANSWER, query: { q: 'jazz history' } }],
    ([r]) => r!.status === 400 && !('parameter' in r!.json.errors[0]),
  ),
  seq(
    'answersearch-400-wrong-parameter',
    () => [{ path: ANSWER, query: { q: 'jazz history' } }],
    ([r]) => r!.status === 400 && r!.json.errors[0].parameter !== 'mkt',
  ),
  seq(
    'answersearch-401-academic-shape',
    () => [answer({ q: 'jazz history' }, 'wrong')],
    ([r]) => r!.status === 401 && typeof r!.json.error.statusCode !== 'number',
  ),
  seq(
    'answersearch-503-unavailable',
    () => [answer({ q: 'jazz history' }), answer({ q: 'jazz history' }, 'none')],
    (res) => res.every((r) => r.status === 503 && r.json.error.statusCode === 503),
  ),
  seq(
    'answersearch-ranking-dangling-index',
    () => [answer({ q: 'jazz history' })],
    ([r]) => {
      const lengths: Record<string, number> = {
        WebPages: r!.json.webPages.value.length,
        Entities: r!.json.entities.value.length,
        Facts: r!.json.facts.value.length,
      };
      return rankingItems(r!).some(
        (item) => item.resultIndex !== undefined && item.resultIndex >= lengths[item.answerType]!,
      );
    },
  ),
  seq(
    'answersearch-ranking-dangling-id',
    () => [answer({ q: 'jazz history' })],
    ([r]) => {
      const known = new Set([
        r!.json.facts.id,
        ...r!.json.webPages.value.map((p: { id: string }) => p.id),
        ...r!.json.entities.value.map((e: { id: string }) => e.id),
      ]);
      return rankingItems(r!).some((item) => item.value && !known.has(item.value.id));
    },
  ),
  seq(
    'answersearch-webpage-id-malformed',
    () => [answer({ q: 'jazz history' })],
    ([r]) => r!.json.webPages.value.some((p: { id: string }) => !/^https?:\/\/[^#]+#WebPages\.\d+$/.test(p.id)),
  ),
  seq(
    'answersearch-entity-bingid-not-uuid',
    () => [answer({ q: 'jazz history' })],
    ([r]) => r!.json.entities.value.some((e: { bingId: string }) => !UUID.test(e.bingId)),
  ),
  seq(
    'answersearch-date-last-crawled-not-utc',
    () => [answer({ q: 'jazz history' })],
    ([r]) => r!.json.webPages.value.some((p: { dateLastCrawled: string }) => !ISO_UTC.test(p.dateLastCrawled)),
  ),
  // URL preview
  seq(
    'urlpreview-invalid-url-accepted',
    () => [{ path: PREVIEW, query: { q: 'not a url' } }],
    ([r]) => r!.status === 200,
  ),
  seq(
    'urlpreview-content-type-html',
    () => [{ path: PREVIEW, query: { q: 'https://example.test/page' } }],
    ([r]) => !r!.type.startsWith('application/json'),
  ),
  seq(
    'urlpreview-image-missing',
    () => [{ path: PREVIEW, query: { q: 'https://example.test/page' } }],
    ([r]) => r!.json.primaryImageOfPage === undefined,
  ),
  seq(
    'urlpreview-400-academic-shape',
    () => [{ path: PREVIEW, query: { q: 'not a url' } }],
    ([r]) => r!.status === 400 && r!.json._type !== 'ErrorResponse',
  ),
  seq(
    'urlpreview-exhausted-key-429',
    () => [{ path: PREVIEW, query: { q: 'https://example.test/page' }, key: 'exhausted' }],
    ([r]) => r!.status === 429,
  ),
  // event knowledge
  seq(
    'hotevents-top-ignored',
    () => [hot({ $top: '1' })],
    ([r]) => eventIds(r!).length > 1,
  ),
  seq(
    'relatedevents-skip-off-by-one',
    () => [related({ $top: '2', $skip: '2' }), related({ $top: '4' })],
    ([page, full]) => differ(eventIds(page!), eventIds(full!).slice(2, 4)),
  ),
  seq(
    'eventdocuments-skip-ignored',
    () => [documents(sample.eventId, { $top: '2', $skip: '2' }), documents(sample.eventId, { $top: '4' })],
    ([page, full]) => differ(page!.json.value, full!.json.value.slice(2, 4)),
  ),
  seq(
    'eventknowledge-no-404',
    () => [documents('0'.repeat(32))],
    ([r]) => r!.status === 200,
  ),
  seq(
    'eventknowledge-404-wrong-shape',
    () => [documents('0'.repeat(32))],
    ([r]) => r!.status === 404 && r!.json.statusCode !== 404,
  ),
  seq(
    'hotevents-top-document-missing',
    () => [hot()],
    ([r]) => r!.json.value.some((e: object) => !('topDocument' in e)),
  ),
  seq(
    'hotevents-document-count-as-string',
    () => [hot()],
    ([r]) => r!.json.value.some((e: { documentCount: unknown }) => typeof e.documentCount === 'string'),
  ),
  seq(
    'relatedevents-not-monotonic',
    () => [related({ $top: '10' })],
    ([r]) => {
      const times = (r!.json.value as { from: string }[]).map((e) => Date.parse(e.from));
      return !nonIncreasing(times) && !nonDecreasing(times);
    },
  ),
  seq(
    'hotevents-date-ignored',
    () => [hot({ date: '2026-11-05' })],
    ([r]) => r!.json.value.some((e: { from: string }) => !e.from.startsWith('2026-11-0')),
  ),
  {
    fault: 'eventknowledge-event-id-not-hex',
    async run(base) {
      const list = await send(base, hot());
      const id = eventIds(list)[0] ?? '';
      return [list, await send(base, documents(id, { $top: '1' }))];
    },
    shows: ([list, docs]) => !/^[0-9a-f]{32}$/.test(eventIds(list!)[0] ?? '') && docs!.status === 200,
  },
  seq(
    'eventdocuments-publish-date-not-iso',
    () => [documents(sample.eventId)],
    ([r]) => r!.json.value.some((d: { publishDate: string }) => !ISO_UTC.test(d.publishDate)),
  ),
  seq(
    'relatedevents-time-not-utc',
    () => [related()],
    ([r]) => r!.json.value.some((e: { from: string; to: string }) => !ISO_UTC.test(e.from) || !ISO_UTC.test(e.to)),
  ),
  seq(
    'relatedevents-time-minus-zero',
    () => [related()],
    ([r]) => r!.json.value.length > 0 && r!.json.value.every((e: { from: string }) => e.from.endsWith('-00:00')),
  ),
  {
    fault: 'eventdocuments-local-time-off-hottest',
    async run(base) {
      // The documents of the hottest event of a day, then of each other event of the day.
      const events = eventIds(await send(base, hot({ $top: '10' })));
      const out: Res[] = [];
      for (const id of events) out.push(await send(base, documents(id!)));
      return out;
    },
    shows: ([hottest, ...others]) => {
      const dates = (res: Res): string[] => (res.json?.value ?? []).map((d: { publishDate: string }) => d.publishDate);
      return (
        dates(hottest!).length > 0 &&
        dates(hottest!).every((date) => ISO_UTC.test(date)) &&
        others.some((other) => dates(other).length > 0 && dates(other).every((date) => date.endsWith('+02:00')))
      );
    },
  },
  // auth and quota
  seq(
    'auth-not-enforced-evaluate-post',
    () => [{ ...asPost(evaluate({ expr: sample.expr })), key: 'none' }],
    ([r]) => r!.status === 200,
  ),
  seq(
    'auth-not-enforced-similarity-get',
    () => [{ ...similarity('graph', 'graphs'), key: 'wrong' }],
    ([r]) => r!.status === 200,
  ),
  seq(
    'auth-not-enforced-answersearch',
    () => [answer({ q: 'jazz' }, 'none')],
    ([r]) => r!.status === 200,
  ),
  seq(
    'auth-not-enforced-urlpreview',
    () => [{ path: PREVIEW, query: { q: 'https://example.test/' }, key: 'none' }],
    ([r]) => r!.status === 200,
  ),
  seq(
    'auth-not-enforced-hotevents',
    () => [hot({}, 'wrong')],
    ([r]) => r!.status === 200,
  ),
  seq(
    'auth-unsubscribed-accepted-answersearch',
    () => [answer({ q: 'jazz' }, 'academicOnly')],
    ([r]) => r!.status === 200,
  ),
  seq(
    'auth-unsubscribed-accepted-relatedevents',
    () => [{ ...related(), key: 'academicOnly' }],
    ([r]) => r!.status === 200,
  ),
  seq(
    'quota-not-enforced',
    () => [hot({}, 'exhausted')],
    ([r]) => r!.status === 200,
  ),
  // input-triggered: only one class of input shows the deviation (first request), the rest does not (second)
  seq(
    'evaluate-wide-or-500',
    () => [evaluate({ expr: 'Or(Y=2001,Y=2002,Y=2003,Y=2004)' }), evaluate({ expr: 'Or(Y=2001,Y=2002,Y=2003)' })],
    ([wide, narrow]) => wide!.status === 500 && narrow!.status === 200,
  ),
  {
    fault: 'calchistogram-date-range-hang',
    async run(base) {
      return [
        await send(base, histo({ expr: "D=['2010-01-01','2010-12-31']", attributes: 'Y' }), server.keys, 1500),
        await send(base, histo({ expr: "D='2010-01-04'", attributes: 'Y' }), server.keys, 1500),
      ];
    },
    shows: ([range, day]) => range!.status === 0 && day!.status === 200,
  },
  seq(
    'evaluate-uppercase-boolean-rejected',
    () => [evaluate({ expr: 'OR(Y=2001,Y=2002)' }), evaluate({ expr: 'Or(Y=2001,Y=2002)' })],
    ([upper, title]) => upper!.status === 400 && title!.status === 200,
  ),
  seq(
    'evaluate-wrong-case-attribute-accepted',
    () => [evaluate({ expr: 'y=2001' }), evaluate({ expr: 'Y>>2001' })],
    ([wrongCase, malformed]) => wrongCase!.status === 200 && malformed!.status === 400,
  ),
  seq(
    'interpret-non-ascii-500',
    () => [interpret({ query: 'papers by josé' }), interpret({ query: sample.query })],
    ([accented, plain]) => accented!.status === 500 && plain!.status === 200,
  ),
  seq(
    'similarity-punctuation-rejected',
    () => [similarity('graph (neural) networks?', 'graphs'), similarity('graph neural networks', 'graphs')],
    ([punctuated, plain]) => punctuated!.status === 400 && plain!.status === 200,
  ),
  seq(
    'similarity-get-long-text-500',
    () => [similarity(bigText(600), 'graphs'), asPost(similarity(bigText(600), 'graphs')), similarity('graphs', 'x')],
    ([get, post, short]) => get!.status === 500 && post!.status === 200 && short!.status === 200,
  ),
  seq(
    'answersearch-fractional-count-accepted',
    () => [answer({ q: 'jazz', count: '2.5' }), answer({ q: 'jazz', count: 'ten' })],
    ([fractional, word]) => fractional!.status === 200 && word!.status === 400,
  ),
  seq(
    'answersearch-long-query-500',
    () => [answer({ q: 'jazz history '.repeat(20) }), answer({ q: 'jazz history' })],
    ([long, short]) => long!.status === 500 && short!.status === 200,
  ),
  seq(
    'urlpreview-malformed-url-accepted',
    () => [
      { path: PREVIEW, query: { q: 'https://exa mple.com/' } },
      { path: PREVIEW, query: { q: 'not a url' } },
    ],
    ([malformed, words]) => malformed!.status === 200 && words!.status === 400,
  ),
  seq(
    'hotevents-day-31-accepted',
    () => [hot({ date: '2021-04-31' }), hot({ date: '2021-02-30' })],
    ([april, february]) => april!.status === 200 && february!.status === 400,
  ),
  seq(
    'relatedevents-non-ascii-500',
    () => [related({ wikipediaid: 'Zürich' }), related()],
    ([accented, plain]) => accented!.status === 500 && plain!.status === 200,
  ),
  {
    fault: 'hotevents-top-zero-hang',
    async run(base) {
      return [
        await send(base, hot({ $top: '0' }), server.keys, 1500),
        await send(base, hot({ $top: '1' }), server.keys, 1500),
      ];
    },
    shows: ([zero, one]) => zero!.status === 0 && one!.status === 200,
  },
  // semantic, input-triggered: a property broken for one class of input (first requests), kept for the rest
  seq(
    'interpret-count-ignored-complete-0',
    () => [
      interpret({ query: sample.query, complete: '0', count: '0' }),
      interpret({ query: sample.prefixQuery, complete: '1', count: '1' }),
    ],
    ([plain, completed]) => interpretations(plain!).length > 0 && interpretations(completed!).length === 1,
  ),
  seq(
    'evaluate-offset-skips-one-from-5',
    () => [
      evaluate({ expr: sample.expr, attributes: 'Id', count: '1', offset: '5' }),
      evaluate({ expr: sample.expr, attributes: 'Id', count: '1', offset: '4' }),
      evaluate({ expr: sample.expr, attributes: 'Id', count: '7' }),
    ],
    ([five, four, whole]) => ids(five!)[0] !== ids(whole!)[5] && ids(four!)[0] === ids(whole!)[4],
  ),
  seq(
    'evaluate-orderby-cc-ignored',
    () => [
      evaluate({ expr: sample.expr, attributes: 'Id,CC', orderby: 'CC:desc', count: '20' }),
      evaluate({ expr: sample.expr, attributes: 'Id,Y', orderby: 'Y:desc', count: '20' }),
    ],
    ([cc, y]) =>
      !nonIncreasing((cc!.json.entities as { CC: number }[]).map((e) => e.CC)) &&
      nonIncreasing((y!.json.entities as { Y: number }[]).map((e) => e.Y)),
  ),
  seq(
    'evaluate-long-expr-echo-cut',
    () => [evaluate({ expr: LONG_OR }), evaluate({ expr: sample.expr })],
    ([long, short]) => long!.json.expr !== LONG_OR && short!.json.expr === sample.expr,
  ),
  seq(
    'evaluate-large-page-attributes-ignored',
    () => [
      evaluate({ expr: sample.expr, attributes: 'Id,Y', count: '1000' }),
      evaluate({ expr: sample.expr, attributes: 'Id,Y', count: '999' }),
    ],
    ([large, smaller]) =>
      (large!.json.entities as object[]).some((e) => 'Ti' in e) &&
      !(smaller!.json.entities as object[]).some((e) => 'Ti' in e),
  ),
  seq(
    'calchistogram-or-num-entities-off',
    () => [
      histo({ expr: `Or(${sample.narrowExpr},Id=1)`, attributes: 'Y' }),
      evaluate({ expr: `Or(${sample.narrowExpr},Id=1)`, attributes: 'Id', count: '1000' }),
      histo({ expr: sample.narrowExpr, attributes: 'Y' }),
      evaluate({ expr: sample.narrowExpr, attributes: 'Id', count: '1000' }),
    ],
    ([orHisto, orEvaluate, histogram, evaluated]) =>
      orHisto!.json.num_entities !== ids(orEvaluate!).length && histogram!.json.num_entities === ids(evaluated!).length,
  ),
  seq(
    'calchistogram-author-distinct-values-one',
    () => [
      histo({ expr: sample.expr, attributes: 'AA.AuN', count: '5' }),
      histo({ expr: sample.expr, attributes: 'Y', count: '5' }),
    ],
    ([authors, years]) =>
      histogram(authors!, 'AA.AuN')?.distinct_values === 1 && (histogram(years!, 'Y')?.distinct_values as number) > 1,
  ),
  seq(
    'similarity-asymmetric-for-long-s1',
    () => [similarity(bigText(800), 'graph retrieval'), similarity('graph retrieval', bigText(800))],
    ([forward, backward]) => differ(forward!.json, backward!.json),
  ),
  seq(
    'similarity-post-long-differs',
    () => [
      asPost(similarity(bigText(1500), LONG_TEXT)),
      similarity(bigText(1500), LONG_TEXT),
      asPost(similarity('graph neural networks', 'graph retrieval')),
      similarity('graph neural networks', 'graph retrieval'),
    ],
    ([longPost, longGet, shortPost, shortGet]) =>
      differ(longPost!.json, longGet!.json) && !differ(shortPost!.json, shortGet!.json),
  ),
  seq(
    'answersearch-strict-500',
    () => [answer({ q: 'jazz', safesearch: 'Strict' }), answer({ q: 'jazz', safesearch: 'Off' })],
    ([strict, off]) => strict!.status === 500 && off!.status === 200,
  ),
  {
    fault: 'hotevents-top-document-foreign',
    async run(base) {
      const list = await send(base, hot({ $top: '3' }));
      const events = (list.json?.value ?? []) as { eventId: string; topDocument: { documentId: string } }[];
      const docs = await Promise.all(
        events.slice(0, 2).map((event) => send(base, documents(event.eventId, { $top: '100' }))),
      );
      return [list, ...docs];
    },
    shows: ([list, hottest, second]) => {
      const events = list!.json.value as { topDocument: { documentId: string } }[];
      const listed = (res: Res) => (res.json.value as { documentId: string }[]).map((d) => d.documentId);
      return (
        listed(hottest!).includes(events[0]!.topDocument.documentId) &&
        !listed(second!).includes(events[1]!.topDocument.documentId)
      );
    },
  },
  // values of the world, ranges and self-consistency: only some inputs show them
  seq(
    'interpret-combining-mark-500',
    () => [interpret({ query: 'papers by jose\u0301' }), interpret({ query: 'papers by jos\u00e9' })],
    ([decomposed, composed]) => decomposed!.status === 500 && composed!.status === 200,
  ),
  seq(
    'interpret-apostrophe-500',
    () => [interpret({ query: "papers by o'brien" }), interpret({ query: sample.query })],
    ([apostrophe, plain]) => apostrophe!.status === 500 && plain!.status === 200,
  ),
  seq(
    'evaluate-cjk-value-rejected',
    () => [evaluate({ expr: "Ti=='\u77e5\u8bc6\u56fe\u8c31'" }), evaluate({ expr: "Ti=='graph'" })],
    ([cjk, plain]) => cjk!.status === 400 && plain!.status === 200,
  ),
  seq(
    'evaluate-quoted-parenthesis-rejected',
    () => [evaluate({ expr: "Ti=='graph networks (gnn)'" }), evaluate({ expr: "Ti=='graph networks'" })],
    ([parenthesized, plain]) => parenthesized!.status === 400 && plain!.status === 200,
  ),
  seq(
    'evaluate-capitalized-value-500',
    () => [evaluate({ expr: "Ti=='Graph'" }), evaluate({ expr: "Ti=='graph'" })],
    ([capital, plain]) => capital!.status === 500 && plain!.status === 200,
  ),
  seq(
    'calchistogram-right-to-left-500',
    () => [histo({ expr: "Ti=='\u05dc\u05de\u05d9\u05d3\u05d4'" }), histo({ expr: sample.expr })],
    ([hebrew, plain]) => hebrew!.status === 500 && plain!.status === 200,
  ),
  seq(
    'similarity-line-break-500',
    () => [similarity('graph\nneural\tnetworks', 'graphs'), similarity('graph neural networks', 'graphs')],
    ([broken, plain]) => broken!.status === 500 && plain!.status === 200,
  ),
  seq(
    'answersearch-emoji-500',
    () => [answer({ q: 'jazz \u{1f4da}' }), answer({ q: 'jazz' })],
    ([emoji, plain]) => emoji!.status === 500 && plain!.status === 200,
  ),
  seq(
    'answersearch-padded-query-rejected',
    () => [answer({ q: ' jazz ' }), answer({ q: 'jazz' })],
    ([padded, plain]) => padded!.status === 400 && plain!.status === 200,
  ),
  seq(
    'answersearch-market-case-500',
    () => [answer({ q: 'jazz', mkt: 'en-us' }), answer({ q: 'jazz' })],
    ([lower, canonical]) => lower!.status === 500 && canonical!.status === 200,
  ),
  seq(
    'urlpreview-port-500',
    () => [
      { path: PREVIEW, query: { q: 'https://www.example.com:8080/' } },
      { path: PREVIEW, query: { q: 'https://www.example.com/' } },
    ],
    ([port, plain]) => port!.status === 500 && plain!.status === 200,
  ),
  seq(
    'relatedevents-punctuated-id-rejected',
    () => [related({ wikipediaid: 'Washington,_D.C.' }), related()],
    ([punctuated, plain]) => punctuated!.status === 400 && plain!.status === 200,
  ),
  seq(
    'hotevents-century-year-500',
    () => [hot({ date: '2000-02-29' }), hot()],
    ([century, plain]) => century!.status === 500 && plain!.status === 200,
  ),
  seq(
    'evaluate-prob-above-one-by-citations',
    () => [
      evaluate({ expr: sample.expr, orderby: 'CC:desc', attributes: 'Id,CC' }),
      evaluate({ expr: sample.expr, orderby: 'Y:desc', attributes: 'Id,Y' }),
    ],
    ([byCitations, byYear]) =>
      byCitations!.json.entities.every((e: { prob: number }) => e.prob > 1) &&
      byYear!.json.entities.every((e: { prob: number }) => e.prob <= 1),
  ),
  seq(
    'calchistogram-venue-prob-above-one',
    () => [histo({ expr: sample.expr, attributes: 'J.JN' }), histo({ expr: sample.expr, attributes: 'F.FN' })],
    ([venues, fields]) =>
      (histogram(venues!, 'J.JN')!.histogram as { prob: number }[]).every((entry) => entry.prob > 1) &&
      (histogram(fields!, 'F.FN')!.histogram as { prob: number }[]).every((entry) => entry.prob <= 1),
  ),
  seq(
    'interpret-prob-above-one-without-completion',
    () => [interpret({ query: 'j teevan', complete: '0' }), interpret({ query: 'j teevan', complete: '1' })],
    ([whole, completed]) =>
      interpretations(whole!).length > 0 &&
      interpretations(whole!).every((i) => (i.prob as number) > 1) &&
      interpretations(completed!).every((i) => (i.prob as number) <= 1),
  ),
  seq(
    'similarity-cjk-above-one',
    () => [similarity('\u77e5\u8bc6 graph', 'graph networks'), similarity('graph', 'graph networks')],
    ([cjk, plain]) => (cjk!.json as number) > 1 && (plain!.json as number) <= 1,
  ),
  seq(
    'answersearch-negative-estimate-non-ascii',
    () => [answer({ q: 'caf\u00e9 jazz' }), answer({ q: 'jazz' })],
    ([accented, plain]) =>
      accented!.json.webPages.totalEstimatedMatches === -1 && plain!.json.webPages.totalEstimatedMatches >= 0,
  ),
  seq(
    'evaluate-year-range-end-ignored',
    () => [evaluate({ expr: 'Y=[2000,2002)', attributes: 'Y', count: '1000' })],
    ([r]) => r!.json.expr === 'Y=[2000,2002)' && (r!.json.entities as { Y: number }[]).some((e) => e.Y >= 2002),
  ),
  seq(
    'interpret-output-drops-year',
    () => [interpret({ query: 'papers by jaime teevan after 2012', complete: '0' })],
    ([r]) =>
      interpretations(r!).some(
        (i) => /academic#Y/.test(String(i.parse)) && !/Y>/.test(String((i.rules as Json[])[0]!.output.value)),
      ),
  ),
  seq(
    'interpret-output-not-canonical',
    () => [interpret({ query: 'papers by j teevan', complete: '0' })],
    ([r]) =>
      interpretations(r!).some(
        (i) => /canonical=/.test(String(i.parse)) && /'j teevan'/.test(String((i.rules as Json[])[0]!.output.value)),
      ),
  ),
  seq(
    'interpret-rule-name-differs-for-initials',
    () => [interpret({ query: 'j teevan', complete: '0' }), interpret({ query: 'papers by jaime teevan' })],
    ([initials, full]) =>
      interpretations(initials!).length > 0 &&
      interpretations(initials!).every((i) => (i.rules as Json[])[0]!.name === '#GetPapersByInitials') &&
      interpretations(full!).every((i) => (i.rules as Json[])[0]!.name === '#GetPapers'),
  ),
  {
    fault: 'answersearch-lowercase-escapes-undecoded',
    async run(base) {
      // Every byte escaped, names included, with lower-case hex: the same request by RFC 3986.
      const escaped = (text: string) => [...new TextEncoder().encode(text)].map((b) => `%${b.toString(16)}`).join('');
      const get = async (query: string) => {
        const res = await fetch(`${base}${ANSWER}?${query}`, {
          headers: { 'Ocp-Apim-Subscription-Key': server.keys.full },
        });
        return { status: res.status, type: '', text: '', json: await res.json(), ms: 0 };
      };
      return [await get(`${escaped('q')}=${escaped('jazz')}&mkt=en-US`), await get('q=jazz&mkt=en-US')];
    },
    shows: ([escaped, plain]) =>
      escaped!.json.queryContext.originalQuery !== 'jazz' && plain!.json.queryContext.originalQuery === 'jazz',
  },
  // release: variations a conforming deployment may show
  seq(
    'echoes-normalized',
    () => [interpret({ query: ' papers by jose\u0301 ' }), answer({ q: ' jazz ' })],
    ([echo, search]) =>
      echo!.json.query === 'papers by jos\u00e9' && search!.json.queryContext.originalQuery === 'jazz',
  ),
  seq(
    'answersearch-market-case-rejected',
    () => [answer({ q: 'jazz', mkt: 'en-us' }), answer({ q: 'jazz' })],
    ([lower, canonical]) => lower!.status === 400 && canonical!.status === 200,
  ),
  seq(
    'evaluate-capitalized-value-rejected',
    () => [evaluate({ expr: "Ti=='Graph'" }), evaluate({ expr: "Ti=='graph'" })],
    ([capital, plain]) => capital!.status === 400 && plain!.status === 200,
  ),
  // drift: allowed, undocumented additions
  seq(
    'interpret-extra-logprob',
    () => [interpret({ query: sample.query })],
    ([r]) => interpretations(r!).some((i) => 'logprob' in i),
  ),
  seq(
    'evaluate-extra-timed-out',
    () => [evaluate({ expr: sample.expr })],
    ([r]) => 'timed_out' in r!.json,
  ),
  seq(
    'answersearch-webpage-extra-property',
    () => [answer({ q: 'jazz history' })],
    ([r]) => r!.json.webPages.value.some((p: object) => 'isNavigational' in p),
  ),
  seq(
    'answersearch-new-contractual-rule-type',
    () => [answer({ q: 'jazz history' })],
    ([r]) =>
      r!.json.entities.value.some((e: { contractualRules: { _type: string }[] }) =>
        e.contractualRules.some((rule) => rule._type === 'ContractualRules/TextAttribution'),
      ),
  ),
  seq(
    'answersearch-ranking-news-answer-type',
    () => [answer({ q: 'jazz history' })],
    ([r]) => rankingItems(r!).some((item) => item.answerType === 'News') && r!.json.news !== undefined,
  ),
  seq(
    'urlpreview-extra-field',
    () => [{ path: PREVIEW, query: { q: 'https://example.test/page' } }],
    ([r]) => 'isFamilyFriendly' in r!.json,
  ),
  seq(
    'hotevents-extra-field',
    () => [hot()],
    ([r]) => r!.json.value.some((e: object) => 'hotness' in e),
  ),
  seq(
    'every-answer-extra-request-id',
    () => [evaluate({ expr: sample.expr }), answer({ q: 'jazz history' }, 'none'), hot({ date: 'not-a-date' })],
    (res) => res.every((r) => typeof r.json?.requestId === 'string') && res[1]!.status === 401,
  ),
  seq(
    'evaluate-slow-40ms',
    () => [1, 2, 3].map(() => evaluate({ expr: sample.expr, count: '2' })),
    // The fastest of three answers: a loaded machine slows some answers, never all three by 40 ms.
    (res) => res.every((r) => r.status === 200) && Math.min(...res.map((r) => r.ms)) >= 40,
  ),
  seq(
    'academic-scores-last-digits',
    () => [1, 2, 3].map(() => evaluate({ expr: sample.expr, count: '2', attributes: 'Id,CC' })),
    // The same papers, with the same integers, and probabilities that differ in their last digits only.
    (res) => {
      const entities = res.map((r) => r.json.entities as { Id: number; CC: number; prob: number }[]);
      const probs = new Set(entities.map((list) => list[0]!.prob));
      return (
        entities.every(
          (list) =>
            JSON.stringify(list.map((e) => [e.Id, e.CC])) === JSON.stringify(entities[0]!.map((e) => [e.Id, e.CC])),
        ) &&
        probs.size > 1 &&
        [...probs].every((prob) => Math.abs(prob - entities[0]![0]!.prob) <= 1e-11 * prob)
      );
    },
  ),
  seq(
    'academic-scores-single-precision',
    () => [1, 2, 3].map(() => evaluate({ expr: sample.expr, count: '2', attributes: 'Id,CC' })),
    // The same papers and integers; probabilities beyond a double's last digits apart, never beyond a millionth.
    (res) => {
      const entities = res.map((r) => r.json.entities as { Id: number; CC: number; prob: number }[]);
      const first = entities[0]![0]!.prob;
      const apart = entities.map((list) => Math.abs(list[0]!.prob - first) / first);
      return (
        entities.every(
          (list) =>
            JSON.stringify(list.map((e) => [e.Id, e.CC])) === JSON.stringify(entities[0]!.map((e) => [e.Id, e.CC])),
        ) &&
        apart.some((difference) => difference > 1e-9) &&
        apart.every((difference) => difference <= 1e-6)
      );
    },
  ),
  seq(
    'answersearch-run-to-run-noise',
    () => [1, 2, 3].map(() => answer({ q: 'jazz history', count: '5' })),
    (res) =>
      new Set(res.map((r) => JSON.stringify(r.json.webPages.value.map((page: Json) => page.dateLastCrawled)))).size > 1,
  ),
  // promises judged on every answer they apply to (promises.ts)
  seq(
    'calchistogram-count-ignored-after-first',
    () => [histo({ expr: sample.expr, attributes: 'Y,F.FN', count: '2' })],
    ([r]) => histogram(r!, 'Y')?.histogram.length <= 2 && histogram(r!, 'F.FN')?.histogram.length > 2,
  ),
  seq(
    'calchistogram-offset-ignored-after-first',
    () => [
      histo({ expr: sample.expr, attributes: 'Y,F.FN', count: '2', offset: '2' }),
      histo({ expr: sample.expr, attributes: 'Y,F.FN', count: '4' }),
    ],
    ([page, whole]) =>
      !differ(histogram(page!, 'Y')?.histogram[0], histogram(whole!, 'Y')?.histogram[2]) &&
      !differ(histogram(page!, 'F.FN')?.histogram[0], histogram(whole!, 'F.FN')?.histogram[0]),
  ),
  seq(
    'calchistogram-composite-distinct-values-off-by-one',
    () => [histo({ expr: sample.narrowExpr, attributes: 'Y,F.FN', count: '1000' })],
    ([r]) =>
      histogram(r!, 'Y')?.distinct_values === histogram(r!, 'Y')?.histogram.length &&
      histogram(r!, 'F.FN')?.distinct_values === histogram(r!, 'F.FN')?.histogram.length + 1,
  ),
  seq(
    'calchistogram-entry-prob-mean',
    () => [
      histo({ expr: sample.narrowExpr, attributes: 'Y', count: '1000' }),
      evaluate({ expr: sample.narrowExpr, attributes: 'Y', count: '1000' }),
    ],
    ([h, e]) => {
      const entry = ((histogram(h!, 'Y')?.histogram ?? []) as { value: number; prob: number; count: number }[]).find(
        (candidate) => candidate.count > 1,
      )!;
      const total = (e!.json.entities as { Y: number; prob: number }[])
        .filter((entity) => entity.Y === entry.value)
        .reduce((sum, entity) => sum + entity.prob, 0);
      return Math.abs(entry.prob * entry.count - total) < 1e-9 * total;
    },
  ),
  seq(
    'calchistogram-last-attribute-dropped',
    () => [histo({ expr: sample.expr, attributes: 'Y,F.FN', count: '3' })],
    ([r]) => histogram(r!, 'Y') !== undefined && histogram(r!, 'F.FN') === undefined,
  ),
  seq(
    'interpret-later-outputs-rejected-by-evaluate',
    () => [interpret({ query: sample.prefixQuery, complete: '1', count: '5' })],
    ([r]) => {
      const outputs = interpretations(r!).map((i) => String(i.rules[0].output.value));
      return (
        outputs.length > 1 &&
        !outputs[0]!.includes('academic#') &&
        outputs.slice(1).every((o) => o.includes('academic#'))
      );
    },
  ),
  seq(
    'interpret-parse-attr-unprefixed',
    () => [interpret({ query: sample.query })],
    ([r]) =>
      interpretations(r!).every((i) => /<attr name="[A-Z]/.test(String(i.parse)) && !/academic#/.test(String(i.parse))),
  ),
  seq(
    'academic-default-model-not-latest',
    () => [
      evaluate({ expr: sample.expr, attributes: 'Y', orderby: 'Y:desc', count: '1' }),
      evaluate({ expr: sample.expr, attributes: 'Y', orderby: 'Y:desc', count: '1', model: 'latest' }),
      histo({ expr: sample.expr, attributes: 'Y' }),
      histo({ expr: sample.expr, attributes: 'Y', model: 'latest' }),
    ],
    ([withoutModel, latest, histogramWithout, histogramLatest]) =>
      withoutModel!.json.expr === sample.expr &&
      withoutModel!.json.entities[0].Y < latest!.json.entities[0].Y &&
      histogramWithout!.json.num_entities < histogramLatest!.json.num_entities,
  ),
  {
    fault: 'hotevents-top-document-oldest',
    async run(base) {
      const list = await send(base, hot({ $top: '1' }));
      const eventId = eventIds(list)[0]!;
      return [list, await send(base, documents(eventId, { $top: '100' }))];
    },
    shows: ([list, docs]) => {
      const listed = docs!.json.value as { documentId: string }[];
      return listed.length > 1 && list!.json.value[0].topDocument.documentId === listed.at(-1)!.documentId;
    },
  },
  {
    fault: 'hotevents-document-count-off-for-second',
    async run(base) {
      const list = await send(base, hot({ $top: '3' }));
      const [first, second] = eventIds(list);
      return [
        list,
        await send(base, documents(first!, { $top: '100' })),
        await send(base, documents(second!, { $top: '100' })),
      ];
    },
    shows: ([list, first, second]) =>
      list!.json.value[0].documentCount === first!.json.value.length &&
      list!.json.value[1].documentCount === second!.json.value.length + 1,
  },
  seq(
    'evaluate-offset-from-100-skips-one',
    () => [
      evaluate({ expr: sample.expr, attributes: 'Id', count: '1', offset: '100' }),
      evaluate({ expr: sample.expr, attributes: 'Id', count: '1', offset: '99' }),
      evaluate({ expr: sample.expr, attributes: 'Id', count: '102' }),
    ],
    ([deep, shallow, whole]) => ids(deep!)[0] === ids(whole!)[101] && ids(shallow!)[0] === ids(whole!)[99],
  ),
  seq(
    'similarity-self-not-one-for-long-texts',
    () => [similarity(LONG_TEXT, LONG_TEXT), similarity('graph retrieval', 'graph retrieval')],
    ([long, short]) => Math.abs(long!.json - 1) > 1e-6 && Math.abs(short!.json - 1) <= 1e-9,
  ),
];

/** Faults that need a burst over the rate limit: run against the low-limit server. */
function burst(path: string, query: Record<string, string>, times: number, base: string): Promise<Res[]> {
  return Promise.all(Array.from({ length: times }, () => send(base, { path, query }, limited.keys)));
}

const RATE_CASES: Case[] = [
  {
    fault: 'rate-limit-disabled',
    async run(base) {
      const [search, preview] = await Promise.all([
        burst(ANSWER, { q: 'jazz', mkt: 'en-US' }, 12, base),
        burst(PREVIEW, { q: 'https://example.test/' }, 12, base),
      ]);
      return [...search, ...preview];
    },
    shows: (res) => res.every((r) => r.status === 200),
  },
  {
    fault: 'answersearch-429-no-seconds',
    run: (base) => burst(ANSWER, { q: 'jazz', mkt: 'en-US' }, 12, base),
    shows: (res) => res.some((r) => r.status === 429 && !/\d+ seconds/.test(r.json.error.message)),
  },
  {
    fault: 'answersearch-429-wrong-shape',
    run: (base) => burst(ANSWER, { q: 'jazz', mkt: 'en-US' }, 12, base),
    shows: (res) => res.some((r) => r.status === 429 && r.json.error === undefined),
  },
  {
    fault: 'urlpreview-429-no-recovery',
    async run(base) {
      const first = await burst(PREVIEW, { q: 'https://example.test/' }, 12, base);
      const limitedAnswer = first.find((r) => r.status === 429);
      const seconds = Number(/(\d+) seconds/.exec(limitedAnswer?.json.error.message ?? '')?.[1] ?? 1);
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000 + 100));
      return [...first, await send(base, { path: PREVIEW, query: { q: 'https://example.test/' } }, limited.keys)];
    },
    shows: (res) => res.at(-1)!.status === 429,
  },
];

before(async () => {
  [server, limited] = await Promise.all([
    startReferenceServer({ quiet: true, rateLimit: 10_000 }),
    startReferenceServer({ quiet: true, rateLimit: 5, papers: 200 }),
  ]);
  const papers = await send(server.url, evaluate({ expr: 'Y>1900', attributes: 'AA.AuN,Y', count: '50' }));
  assert.equal(papers.status, 200, `sample evaluate failed: ${papers.text.slice(0, 200)}`);
  const entities = papers.json.entities as { AA?: { AuN: string }[]; Y: number }[];
  sample.author = entities.find((e) => e.AA?.length)!.AA![0]!.AuN;
  sample.query = `papers by ${sample.author}`;
  sample.prefixQuery = `papers by ${sample.author.split(' ')[0]!.slice(0, 2)}`;
  sample.expr = 'Y>1900';
  const year = entities[0]!.Y;
  sample.narrowExpr = `Y=[${year},${year + 3}]`;
  const hotList = await send(server.url, hot());
  // Hot events come busiest first, so the first one has the most documents to page over.
  sample.eventId = eventIds(hotList)[0]!;
});

after(async () => {
  await Promise.all([server?.close(), limited?.close()]);
});

describe('fault catalogue', () => {
  test('names are unique kebab-case and every operation id exists', () => {
    const names = FAULTS.map((fault) => fault.name);
    assert.equal(new Set(names).size, names.length, 'duplicate fault names');
    for (const fault of FAULTS) {
      assert.match(fault.name, /^[a-z0-9]+(-[a-z0-9]+)*$/, fault.name);
      assert.ok(fault.operations.length > 0, `${fault.name} names no operation`);
      for (const op of fault.operations) assert.ok(ROUTE_BY_ID.has(op), `${fault.name}: unknown operation ${op}`);
      assert.ok(fault.description.length > 10 && !fault.description.includes('\n'), `${fault.name}: description`);
    }
  });

  test('has at least 30 forbidden, 4 drift and 5 hostile faults', () => {
    const count = (deviation: string) => FAULTS.filter((fault) => fault.deviation === deviation).length;
    assert.ok(count('forbidden') >= 30, `forbidden: ${count('forbidden')}`);
    assert.ok(count('drift') >= 4, `drift: ${count('drift')}`);
    assert.ok(count('hostile') >= 5, `hostile: ${count('hostile')}`);
  });

  test('GET /faults serves the catalogue without a key', async () => {
    const res = await send(server.url, { path: '/faults', key: 'none' });
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.json,
      FAULTS.map(({ name, group, operations, deviation, description }) => ({
        name,
        group,
        operations,
        deviation,
        description,
      })),
    );
  });

  test('README.md lists every fault', () => {
    const readme = readFileSync(new URL('./README.md', import.meta.url), 'utf8');
    assert.deepEqual(
      FAULTS.filter((fault) => !new RegExp(`^\\| \`${fault.name}\` +\\|`, 'm').test(readme)).map((fault) => fault.name),
      [],
    );
  });

  test('every forbidden and drift fault has a case below', () => {
    // The faults of the coverage model's classes have their cases in classes.test.ts.
    const covered = new Set([...CASES, ...RATE_CASES].map((c) => c.fault).concat(classFaults().map((f) => f.name)));
    // Hostile faults are probed in hostile.test.ts, the real family in real.test.ts.
    const missing = FAULTS.filter(
      (fault) => (fault.deviation === 'forbidden' || fault.deviation === 'drift') && !covered.has(fault.name),
    );
    assert.deepEqual(
      missing.map((fault) => fault.name),
      [],
    );
  });
});

describe('each fault shows its deviation and the clean server does not', () => {
  for (const c of CASES) {
    test(c.fault, async () => {
      const [clean, faulty] = await Promise.all([c.run(server.url), c.run(`${server.url}/faults/${c.fault}`)]);
      assert.equal(
        c.shows(clean),
        false,
        `the clean server already shows it: ${clean.map((r) => r.text.slice(0, 200))}`,
      );
      assert.equal(c.shows(faulty), true, `the fault does not show: ${faulty.map((r) => r.text.slice(0, 200))}`);
    });
  }
});

describe('rate-limit faults (server limited to 5 requests/s per key)', () => {
  for (const c of RATE_CASES) {
    test(c.fault, async () => {
      // The clean and faulty buckets are separate; wait for the clean one to refill from the previous case.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const clean = await c.run(limited.url);
      const faulty = await c.run(`${limited.url}/faults/${c.fault}`);
      assert.equal(c.shows(clean), false, `the clean server already shows it: ${clean.map((r) => r.status)}`);
      assert.equal(c.shows(faulty), true, `the fault does not show: ${faulty.map((r) => r.text.slice(0, 120))}`);
    });
  }
});
