import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ReferenceServer, startReferenceServer } from '../index.ts';
import { type Reply, send } from '../test-client.ts';
import { createVariations, VARIATIONS } from './index.ts';

// Every variation is proven over real HTTP: the varied base_url shows the variation, the clean one
// does not, and where the variation keeps the value (a form of JSON text, of a timestamp, of a field)
// the varied answer reads back as the clean one.

let server: ReferenceServer;
before(async () => {
  server = await startReferenceServer({ quiet: true, rateLimit: 5 });
});
after(async () => {
  await server?.close();
});

/** One GET with the full key, as raw as node:http gives it (field names as written, the body as sent). */
function get(base: string, path: string, query: Record<string, string> = {}, key = server.keys.full): Promise<Reply> {
  const url = new URL(base + path);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return send(url.origin, `${url.pathname}${url.search}`, { key });
}

const A = '/academic/v1.0';
const EVALUATE = `${A}/evaluate`;
const ANSWER = '/answersearch/v7.0/search';
const HOT = '/eventknowledge/v1.0/hotevents';
const DATE = '2026-11-01';
const sortKeys = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(sortKeys)
    : value !== null && typeof value === 'object'
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
        )
      : value;
const timestamps = (json: unknown): string[] =>
  JSON.stringify(json).match(/"(?:from|to|publishDate|dateLastCrawled)":"([^"]+)"/g) ?? [];
const instants = (json: unknown) => timestamps(json).map((field) => Date.parse(field.split('":"')[1]!.slice(0, -1)));

/** A variation, the requests that show it, and what the answers show (against the clean server's). */
interface Case {
  name: string;
  path: string;
  query?: Record<string, string>;
  shows(varied: Reply, clean: Reply): boolean;
}

const SEARCH = { q: 'weather', mkt: 'en-US', count: '10' };
const CASES: Case[] = [
  {
    name: 'json-insignificant-whitespace',
    path: EVALUATE,
    query: { expr: 'Y>1900', attributes: 'Id,Ti', count: '3' },
    shows: (v, c) => /^ \r\n\{\r\n\t"/.test(v.text) && v.text !== c.text,
  },
  {
    name: 'json-escaped-characters',
    path: ANSWER,
    query: SEARCH,
    shows: (v) => v.text.includes('\\/') && v.text.includes('\\u0065'),
  },
  {
    name: 'json-number-forms',
    path: EVALUATE,
    query: { expr: 'Y>1900', attributes: 'Id,Y', count: '3' },
    shows: (v) => /"Y":\d\.\d+E3|"Y":\d\.\d+e\+3|"Y":\d+\.0|"Y":\d+E0/.test(v.text) && !/"Y":\d{4}[,}]/.test(v.text),
  },
  {
    name: 'json-member-order-varies',
    path: ANSWER,
    query: SEARCH,
    shows: (v, c) => v.text !== c.text,
  },
  {
    name: 'timestamps-offset-zero',
    path: HOT,
    query: { date: DATE },
    shows: (v) => timestamps(v.json).length > 0 && timestamps(v.json).every((field) => field.endsWith('+00:00"')),
  },
  {
    name: 'timestamps-fractional-seconds',
    path: HOT,
    query: { date: DATE },
    shows: (v) => timestamps(v.json).every((field) => /:\d\d\.\d+Z"$/.test(field)),
  },
  {
    name: 'timestamps-lower-case',
    path: ANSWER,
    query: SEARCH,
    shows: (v) => timestamps(v.json).length > 0 && timestamps(v.json).every((field) => /\dt\d.*z"$/.test(field)),
  },
  {
    name: 'content-type-parameters',
    path: EVALUATE,
    query: { expr: 'Y>1900' },
    shows: (v, c) => v.headers['content-type'] !== c.headers['content-type'],
  },
  {
    name: 'caching-fields',
    path: EVALUATE,
    query: { expr: 'Y>1900' },
    shows: (v, c) =>
      v.headers['cache-control'] === 'public, max-age=300' &&
      /^W\/"/.test(String(v.headers.etag)) &&
      c.headers['cache-control'] === undefined,
  },
  {
    name: 'field-names-in-other-case',
    path: EVALUATE,
    query: { expr: 'Y>1900' },
    shows: (v, c) =>
      v.rawHeaders.includes('CONTENT-TYPE') &&
      v.rawHeaders.includes('Content-Length') &&
      c.rawHeaders.includes('content-type'),
  },
  {
    name: 'chunked-transfer-coding',
    path: EVALUATE,
    query: { expr: 'Y>1900' },
    shows: (v, c) =>
      v.headers['transfer-encoding'] === 'chunked' &&
      v.headers['content-length'] === undefined &&
      c.headers['content-length'] !== undefined,
  },
  {
    name: 'scores-in-single-precision-on-post',
    path: `${A}/similarity`,
    query: { s1: 'graph neural networks', s2: 'neural graph retrieval' },
    // GET computes in double: it is the clean answer; POST is judged in its own test below.
    shows: (v, c) => v.text === c.text,
  },
  {
    name: 'answersearch-fewer-results',
    path: ANSWER,
    query: SEARCH,
    shows: (v, c) =>
      (v.json as { webPages: { value: unknown[] } }).webPages.value.length === 5 &&
      (c.json as { webPages: { value: unknown[] } }).webPages.value.length === 10,
  },
  {
    name: 'answersearch-fewer-skipping-some',
    path: ANSWER,
    query: SEARCH,
    shows: (v, c) => {
      const urls = (res: Reply) =>
        (res.json as { webPages: { value: { url: string }[] } }).webPages.value.map((p) => p.url);
      const [varied, clean] = [urls(v), urls(c)];
      // Fewer, some left out between others, the rest in the clean order.
      return (
        varied.length < clean.length &&
        varied.length > 0 &&
        clean.indexOf(varied.at(-1)!) > varied.length - 1 &&
        varied.every((url, i) => i === 0 || clean.indexOf(url) > clean.indexOf(varied[i - 1]!))
      );
    },
  },
  {
    name: 'interpret-fewer-skipping-some',
    path: '/academic/v1.0/interpret',
    query: { query: 'papers by j', complete: '1', count: '10' },
    shows: (v, c) => {
      const parses = (res: Reply) =>
        (res.json as { interpretations: { parse: string }[] }).interpretations.map((i) => i.parse);
      const [varied, clean] = [parses(v), parses(c)];
      return varied.length < clean.length && varied.every((parse) => clean.includes(parse));
    },
  },
  {
    name: 'relatedevents-oldest-first',
    path: '/eventknowledge/v1.0/relatedevents',
    query: { wikipediaid: 'Barack_Obama', $top: '100' },
    shows: (v, c) => {
      const froms = (json: unknown) => (json as { value: { from: string }[] }).value.map((event) => event.from);
      return froms(v.json).length > 1 && JSON.stringify(froms(v.json)) === JSON.stringify(froms(c.json).reverse());
    },
  },
  {
    name: 'related-entities-sometimes-empty',
    path: HOT,
    query: { date: DATE },
    shows: (v, c) => {
      const entities = (res: Reply) =>
        (res.json as { value: { relatedEntities: string[] }[] }).value.map((event) => event.relatedEntities);
      const [varied, clean] = [entities(v), entities(c)];
      return (
        clean.some((list, i) => i % 2 === 1 && list.length > 0) &&
        varied.every((list, i) => (i % 2 === 1 ? list.length === 0 : JSON.stringify(list) === JSON.stringify(clean[i])))
      );
    },
  },
  {
    name: 'evaluate-ids-as-strings',
    path: EVALUATE,
    query: { expr: 'Y>1900', attributes: 'Id', count: '3' },
    shows: (v) => (v.json as { entities: { Id: unknown }[] }).entities.every((entity) => typeof entity.Id === 'string'),
  },
  {
    name: 'histograms-in-another-order',
    path: `${A}/calchistogram`,
    query: { expr: 'Y>1900', attributes: 'Y,F.FN' },
    shows: (v) =>
      (v.json as { histograms: { attribute: string }[] }).histograms.map((h) => h.attribute).join() === 'F.FN,Y',
  },
];

/** The variations whose answers read back as the clean ones (JSON.parse, members in any order). */
const SAME_VALUE = new Set([
  'json-insignificant-whitespace',
  'json-escaped-characters',
  'json-number-forms',
  'json-member-order-varies',
  'content-type-parameters',
  'caching-fields',
  'field-names-in-other-case',
  'chunked-transfer-coding',
]);

describe('legitimate variations', () => {
  test('names are unique kebab-case, none a fault name, each with the clause that allows it', async () => {
    const names = VARIATIONS.map((variation) => variation.name);
    assert.equal(new Set(names).size, names.length);
    const { FAULTS } = await import('../faults/index.ts');
    for (const variation of VARIATIONS) {
      assert.match(variation.name, /^[a-z0-9]+(-[a-z0-9]+)*$/);
      assert.equal(variation.deviation, 'legitimate');
      assert.ok(variation.allowedBy.length > 10 && variation.description.length > 10, variation.name);
      assert.ok(!FAULTS.some((fault) => fault.name === variation.name), `${variation.name} is also a fault`);
    }
  });

  test('GET /variations lists the catalogue without a key', async () => {
    const res = await get(server.url, '/variations', {}, '');
    assert.equal(res.status, 200);
    assert.deepEqual(
      (res.json as { name: string }[]).map((entry) => entry.name),
      createVariations().map((variation) => variation.name),
    );
    assert.equal((await get(server.url, '/variations/no-such-variation')).status, 404);
  });

  test('every variation has a case below, and each case shows its variation on the varied base_url only', async () => {
    assert.deepEqual(
      VARIATIONS.map((variation) => variation.name).filter(
        (name) =>
          !CASES.some((c) => c.name === name) &&
          !['retry-after-http-date', 'eventdocuments-oldest-first', 'answersearch-estimate-varies'].includes(name),
      ),
      [],
      'a variation without a case',
    );
    for (const c of CASES) {
      const clean = await get(server.url, c.path, c.query);
      const varied = await get(`${server.url}/variations/${c.name}`, c.path, c.query);
      assert.equal(varied.status, clean.status, `${c.name}: the same status`);
      assert.ok(c.shows(varied, clean), `${c.name}: shows the variation (${varied.text.slice(0, 200)})`);
      if (SAME_VALUE.has(c.name))
        assert.deepEqual(sortKeys(varied.json), sortKeys(clean.json), `${c.name}: the same value`);
      if (c.name.startsWith('timestamps-'))
        assert.deepEqual(instants(varied.json), instants(clean.json), `${c.name}: the same instants`);
    }
  });

  test('scores in single precision on POST: the same bits on every call, GET and POST within 3e-7', async () => {
    const base = `${server.url}/variations/scores-in-single-precision-on-post`;
    const body = 's1=graph+neural+networks&s2=neural+graph+retrieval';
    const post = () =>
      fetch(`${base}${A}/similarity`, {
        method: 'POST',
        headers: { 'Ocp-Apim-Subscription-Key': server.keys.full, 'Content-Type': 'application/x-www-form-urlencoded' },
        body,
      }).then((res) => res.json() as Promise<number>);
    const [first, second] = [await post(), await post()];
    const viaGet = (await get(base, `${A}/similarity`, { s1: 'graph neural networks', s2: 'neural graph retrieval' }))
      .json as number;
    assert.equal(first, second, 'deterministic');
    assert.equal(Math.fround(first), first, 'a float32 value');
    assert.ok(first !== viaGet && Math.abs(first - viaGet) / Math.abs(viaGet) < 3e-7, `${first} against ${viaGet}`);
  });

  test('Retry-After as an HTTP-date on a 429, the message still stating the seconds', async () => {
    const base = `${server.url}/variations/retry-after-http-date`;
    let limited: Reply | undefined;
    for (let i = 0; i < 20 && !limited; i++) {
      const res = await get(base, '/urlpreview/v7.0/search', { q: 'https://example.test/' });
      if (res.status === 429) limited = res;
    }
    assert.ok(limited, 'a 429 within 20 requests at 5/s');
    const field = String(limited.headers['retry-after']);
    assert.match(field, /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/, 'an IMF-fixdate');
    assert.ok(Date.parse(field) > Date.now() - 1000, 'in the future, or this second');
    assert.match(JSON.stringify(limited.json), /\d+ seconds?/);
  });

  test('documents oldest first and estimates that vary: the same results, paged consistently', async () => {
    const hot = await get(server.url, HOT, { date: DATE, $top: '1' });
    const eventId = (hot.json as { value: { eventId: string }[] }).value[0]!.eventId;
    const path = `/eventknowledge/v1.0/events/${eventId}/documents`;
    const base = `${server.url}/variations/eventdocuments-oldest-first`;
    const ids = (res: Reply) => (res.json as { value: { documentId: string }[] }).value.map((doc) => doc.documentId);
    const all = ids(await get(server.url, path, { $top: '100' }));
    const reversed = ids(await get(base, path, { $top: '100' }));
    assert.ok(all.length > 3);
    assert.deepEqual(reversed, [...all].reverse());
    assert.deepEqual(
      ids(await get(base, path, { $top: '2', $skip: '1' })),
      reversed.slice(1, 3),
      'a page is a slice of the whole',
    );
    const estimates = new Set<number>();
    for (let i = 0; i < 6; i++) {
      const res = await get(`${server.url}/variations/answersearch-estimate-varies`, ANSWER, SEARCH);
      estimates.add((res.json as { webPages: { totalEstimatedMatches: number } }).webPages.totalEstimatedMatches);
      await new Promise((resolve) => setTimeout(resolve, 220));
    }
    assert.ok(estimates.size > 1, `the estimate moves between calls: ${[...estimates].join(', ')}`);
  });
});
