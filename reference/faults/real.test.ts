import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { ANSWER_URL } from '../answer-search.ts';
import { type ReferenceServer, startReferenceServer } from '../index.ts';
import { qs, type Reply, send } from '../test-client.ts';
import { FAULTS } from './index.ts';
import { factFor, normalizeEcho, REAL_FACTS_RANKING_ID, stringifyWithExponents } from './real.ts';
import { ALL_OPERATIONS } from './transform.ts';

// The `real` family: each variant answers the way the real service did on one point of
// facts.md, changes exactly the operations it lists, and `real-profile` (also served at the root
// URL by `startReferenceServer({ profile: 'real' })`) combines them.

// biome-ignore lint/suspicious/noExplicitAny: predicates over untyped JSON read best with optional chaining
type Json = any;

const A = '/academic/v1.0';
const REAL = FAULTS.filter((fault) => fault.deviation === 'real');
const VARIANTS = REAL.filter((fault) => fault.name !== 'real-profile');
const BINGISH = ['bingapis-market', 'bingapis-traceid', 'x-msedge-clientid', 'x-msedge-ref'];

let clean: ReferenceServer;
let real: ReferenceServer;
/** A real-profile server whose evaluate/calchistogram budget is spent at once, so answers are cut short. */
let hurried: ReferenceServer;
let author = '';
let eventId = '';

/** GET `path` under `base`, which may carry a path prefix such as `/faults/<name>`. */
const get = (base: string, path: string, key: string | undefined = clean.keys.full) => {
  const url = new URL(base);
  return send(url.origin, `${url.pathname.replace(/\/$/, '')}${path}`, { key });
};

/** One request per operation, with values that reach data; interpret's query has capitals and punctuation to normalize. */
function requests(): { operationId: string; path: string; body?: string }[] {
  const interpret = qs({ query: `Papers by ${author}!`, complete: '0', count: '3' });
  const evaluate = qs({ expr: 'Y>1900', attributes: 'Ti,Y,AA.AuN', count: '3' });
  const histogram = qs({ expr: 'Y>1900', attributes: 'Y,F.FN', count: '3' });
  const similarity = qs({ s1: 'knowledge graph embeddings', s2: 'embedding of knowledge graphs' });
  return [
    { operationId: 'interpretGet', path: `${A}/interpret?${interpret}` },
    { operationId: 'interpretPost', path: `${A}/interpret`, body: interpret },
    { operationId: 'evaluateGet', path: `${A}/evaluate?${evaluate}` },
    { operationId: 'evaluatePost', path: `${A}/evaluate`, body: evaluate },
    { operationId: 'calchistogramGet', path: `${A}/calchistogram?${histogram}` },
    { operationId: 'calchistogramPost', path: `${A}/calchistogram`, body: histogram },
    { operationId: 'similarityGet', path: `${A}/similarity?${similarity}` },
    { operationId: 'similarityPost', path: `${A}/similarity`, body: similarity },
    { operationId: 'answerSearch', path: `/answersearch/v7.0/search?${qs({ q: 'knowledge graph', mkt: 'en-US' })}` },
    { operationId: 'urlPreview', path: `/urlpreview/v7.0/search?${qs({ q: 'https://example.org/a' })}` },
    { operationId: 'hotEvents', path: '/eventknowledge/v1.0/hotevents?date=2026-11-01&$top=3' },
    { operationId: 'relatedEvents', path: '/eventknowledge/v1.0/relatedevents?wikipediaid=Barack_Obama&$top=3' },
    { operationId: 'eventDocuments', path: `/eventknowledge/v1.0/events/${eventId}/documents?$top=3` },
  ];
}

/** What a variant may change: status, body text, content type and the set of header names. */
function shape(reply: Reply): string {
  const names = Object.keys(reply.headers)
    .filter((name) => name !== 'date')
    .sort();
  return JSON.stringify([reply.status, reply.headers['content-type'], names, reply.text]);
}

async function answers(base: string): Promise<Map<string, Reply>> {
  const url = new URL(base);
  const prefix = url.pathname.replace(/\/$/, '');
  const out = new Map<string, Reply>();
  for (const req of requests()) {
    out.set(req.operationId, await send(url.origin, prefix + req.path, { key: clean.keys.full, body: req.body }));
  }
  return out;
}

const byOp = (replies: Map<string, Reply>, operationId: string) => replies.get(operationId)!;
const json = (reply: Reply) => reply.json as Json;
const probs = (reply: Reply) => {
  const body = json(reply);
  return [
    ...(body.interpretations ?? []),
    ...(body.entities ?? []),
    ...(body.histograms ?? []).flatMap((h: Json) => h.histogram),
  ].map((item: Json) => item.prob);
};

/** What each variant shows on the answers to `requests()` (and the clean server does not). */
const SHOWS: Record<string, (replies: Map<string, Reply>) => boolean> = {
  'real-aborted-omitted': (r) =>
    ['evaluateGet', 'evaluatePost', 'calchistogramGet', 'calchistogramPost'].every(
      (op) => !('aborted' in json(byOp(r, op))),
    ) &&
    ['interpretGet', 'interpretPost'].every((op) => {
      const body = json(byOp(r, op));
      return !('aborted' in body) && body.timed_out === false && body.timed_out_count === 0;
    }),
  'real-score-fields': (r) =>
    ['interpretGet', 'evaluateGet', 'calchistogramPost'].every((op) => {
      const items = probs(byOp(r, op)).length;
      const body = json(byOp(r, op));
      const scored = [
        ...(body.interpretations ?? []),
        ...(body.entities ?? []),
        ...(body.histograms ?? []).flatMap((h: Json) => h.histogram),
      ].filter((item: Json) => Math.abs(item.logprob - Math.log(item.prob)) < 1e-9);
      return items > 0 && scored.length === items;
    }),
  'real-facts-minimal': (r) => {
    const facts = json(byOp(r, 'answerSearch')).facts;
    return JSON.stringify(Object.keys(facts)) === '["id","value"]';
  },
  'real-ranking-id-path': (r) => {
    const body = json(byOp(r, 'answerSearch'));
    const item = body.rankingResponse.mainline.items.find((i: Json) => i.answerType === 'Facts');
    return item?.value.id === REAL_FACTS_RANKING_ID && body.facts.id === `${ANSWER_URL}#Facts`;
  },
  'real-echo-normalized': (r) =>
    json(byOp(r, 'interpretGet')).query === `papers by ${author}` &&
    json(byOp(r, 'interpretPost')).query === `papers by ${author}`,
  'real-exponent-numbers': (r) =>
    /"prob":\d\.\d+e-\d{3}[,}]/.test(byOp(r, 'evaluateGet').text) &&
    /"prob":\d\.\d+e-\d{3}[,}]/.test(byOp(r, 'interpretPost').text) &&
    /"prob":\d\.\d+E-\d{2}[,}]/.test(byOp(r, 'calchistogramGet').text),
  'real-headers': (r) =>
    ALL_OPERATIONS.every((op) => {
      const { headers } = byOp(r, op);
      const bingish = op === 'answerSearch' || op === 'urlPreview';
      return (
        headers['x-powered-by'] !== undefined &&
        headers['access-control-allow-origin'] === '*' &&
        headers['content-type'] === 'application/json; charset=utf-8' &&
        BINGISH.every((name) => (headers[name] !== undefined) === bingish)
      );
    }),
};

before(async () => {
  [clean, real, hurried] = await Promise.all([
    startReferenceServer({ quiet: true, rateLimit: 10_000 }),
    startReferenceServer({ quiet: true, rateLimit: 10_000, profile: 'real' }),
    startReferenceServer({ quiet: true, papers: 20_000, timeBudgetMs: 0, profile: 'real' }),
  ]);
  const papers = await get(clean.url, `${A}/evaluate?${qs({ expr: 'Y>1900', attributes: 'AA.AuN', count: '20' })}`);
  author = (json(papers).entities as Json[]).find((e) => e.AA?.length).AA[0].AuN;
  eventId = json(await get(clean.url, '/eventknowledge/v1.0/hotevents?date=2026-11-01')).value[0].eventId;
});

after(async () => {
  await Promise.all([clean?.close(), real?.close(), hurried?.close()]);
});

describe('the real fault family', () => {
  test('one variant per point plus real-profile, each with a case here', () => {
    assert.deepEqual(
      REAL.map((fault) => fault.name),
      [
        'real-aborted-omitted',
        'real-score-fields',
        'real-facts-minimal',
        'real-ranking-id-path',
        'real-echo-normalized',
        'real-headers',
        'real-exponent-numbers',
        'real-profile',
      ],
      'the real family, in the order the profile applies it',
    );
    for (const fault of VARIANTS) assert.ok(SHOWS[fault.name], `${fault.name} has a case`);
  });

  test('real-profile lists every operation a variant changes', () => {
    const profile = REAL.find((fault) => fault.name === 'real-profile')!;
    const union = ALL_OPERATIONS.filter((op) => VARIANTS.some((fault) => fault.operations.includes(op)));
    assert.deepEqual(profile.operations, union, 'profile operations are the union of its variants');
  });

  for (const fault of REAL) {
    test(`${fault.name} changes exactly its operations (${fault.operations.length})`, async () => {
      const [base, faulty] = await Promise.all([answers(clean.url), answers(`${clean.url}/faults/${fault.name}`)]);
      for (const op of ALL_OPERATIONS) {
        const changed = shape(byOp(base, op)) !== shape(byOp(faulty, op));
        assert.equal(
          changed,
          fault.operations.includes(op),
          `${fault.name} on ${op}: ${changed ? 'changed but not listed' : 'listed but unchanged'}: ${byOp(faulty, op).text.slice(0, 160)}`,
        );
      }
    });
  }

  for (const fault of VARIANTS) {
    test(`${fault.name} shows its behaviour, the clean server does not, the profile does`, async () => {
      const [base, faulty, profile, root] = await Promise.all([
        answers(clean.url),
        answers(`${clean.url}/faults/${fault.name}`),
        answers(`${clean.url}/faults/real-profile`),
        answers(real.url),
      ]);
      const shows = SHOWS[fault.name]!;
      assert.equal(shows(base), false, `the clean server already shows ${fault.name}`);
      assert.equal(shows(faulty), true, `${fault.name} does not show: ${[...faulty.values()][2]?.text.slice(0, 200)}`);
      assert.equal(shows(profile), true, `/faults/real-profile lacks ${fault.name}`);
      assert.equal(shows(root), true, `the profile 'real' root URL lacks ${fault.name}`);
    });
  }
});

describe('details of the real answers', () => {
  test('exponent numbers parse to the same values as the clean answer', async () => {
    const [base, faulty] = await Promise.all([
      answers(clean.url),
      answers(`${clean.url}/faults/real-exponent-numbers`),
    ]);
    for (const op of ['interpretGet', 'evaluateGet', 'calchistogramGet']) {
      assert.deepEqual(probs(byOp(faulty, op)), probs(byOp(base, op)), `${op}: same numbers`);
      assert.deepEqual(json(byOp(faulty, op)), json(byOp(base, op)), `${op}: same parsed body`);
    }
  });

  const EXPONENTS: { given: { value: unknown; style: 'lower' | 'upper' }; want: string }[] = [
    { given: { value: { prob: 2.266e-7 }, style: 'lower' }, want: '{"prob":2.266e-007}' },
    { given: { value: { prob: 1.0991207675e-6 }, style: 'upper' }, want: '{"prob":1.0991207675E-06}' },
    { given: { value: { prob: 0.5, count: 3 }, style: 'lower' }, want: '{"prob":5e-001,"count":3}' },
    { given: { value: [{ prob: 1, s: 'a"b' }], style: 'upper' }, want: '[{"prob":1E+00,"s":"a\\"b"}]' },
    { given: { value: { logprob: -15.08, x: null }, style: 'lower' }, want: '{"logprob":-15.08,"x":null}' },
  ];
  for (const { given, want } of EXPONENTS) {
    test(`stringifyWithExponents(${JSON.stringify(given.value)}, ${given.style}) is ${want}`, () => {
      const text = stringifyWithExponents(given.value, given.style);
      assert.equal(text, want, 'written form');
      assert.deepEqual(JSON.parse(text), given.value, 'parses back to the same value');
    });
  }

  const ECHOES = [
    { given: 'Papers by Jaime Teevan!', want: 'papers by jaime teevan' },
    { given: 'papers by j. l. green, 2015?', want: 'papers by j l green 2015' },
    { given: 'papers by jaime', want: 'papers by jaime' },
  ];
  for (const { given, want } of ECHOES) {
    test(`the interpret echo of '${given}' is '${want}'`, () => {
      assert.equal(normalizeEcho(given), want, 'lower case, punctuation removed');
    });
  }

  test('a facts query is answered with facts only, as the documented sample', async () => {
    const reply = await get(real.url, `/answersearch/v7.0/search?${qs({ q: 'valentines 2016', mkt: 'en-US' })}`);
    assert.equal(reply.status, 200, reply.text.slice(0, 200));
    const body = json(reply);
    assert.deepEqual(Object.keys(body), ['_type', 'queryContext', 'facts', 'rankingResponse'], 'facts-only answer');
    assert.deepEqual(body.queryContext, { originalQuery: 'valentines 2016' }, 'query echoed');
    assert.deepEqual(
      body.facts,
      {
        id: `${ANSWER_URL}#Facts`,
        value: [
          { description: "Valentine's Day was on Sunday, February 14, 2016.", subjectName: "Valentine's Day 2016" },
        ],
      },
      'the documented fact',
    );
    assert.deepEqual(
      body.rankingResponse,
      { mainline: { items: [{ answerType: 'Facts', value: { id: REAL_FACTS_RANKING_ID } }] } },
      'mainline only, the id one path segment longer',
    );
  });

  const FACTS = [
    { given: 'valentines 2016', want: "Valentine's Day was on Sunday, February 14, 2016." },
    { given: 'Christmas 2030', want: 'Christmas Day is on Wednesday, December 25, 2030.' },
    { given: '2019 halloween', want: 'Halloween was on Thursday, October 31, 2019.' },
    { given: 'knowledge graph', want: undefined },
    { given: 'weather 2016', want: undefined },
  ];
  for (const { given, want } of FACTS) {
    test(`'${given}' is ${want ? 'a facts query' : 'not a facts query'}`, () => {
      assert.equal(factFor(given)?.description, want, 'the fact told');
    });
  }

  test('queries with web pages keep them under the profile', async () => {
    for (const q of ['knowledge graph', 'machine learning', 'weather']) {
      const body = json(await get(real.url, `/answersearch/v7.0/search?${qs({ q, mkt: 'en-US', count: '10' })}`));
      assert.ok(body.webPages?.value.length >= 6, `${q}: web pages kept`);
      assert.ok(body.rankingResponse.sidebar, `${q}: sidebar kept`);
      assert.deepEqual(Object.keys(body.facts), ['id', 'value'], `${q}: minimal facts`);
    }
  });

  test('aborted: true is still sent when the time is spent', async () => {
    const interpret = json(await get(real.url, `${A}/interpret?${qs({ query: `papers by ${author}`, timeout: '0' })}`));
    assert.equal(interpret.aborted, true, 'interpret cut short by its timeout');
    assert.equal(interpret.timed_out, true, 'and says so in timed_out');
    const evaluate = json(
      await get(
        hurried.url,
        `${A}/evaluate?${qs({ expr: "DOI='10.'...", count: '1000', offset: '5000' })}`,
        hurried.keys.full,
      ),
    );
    assert.equal(evaluate.aborted, true, 'evaluate cut short by the time budget');
  });

  test('a market that cannot be a header value is not echoed in BingAPIs-Market', async () => {
    const reply = await get(real.url, '/answersearch/v7.0/search?q=x&mkt=en-US%0D%0AX-Injected:%201');
    assert.equal(reply.status, 400, 'an unsupported market is refused, not a 500');
    assert.equal(reply.headers['x-injected'], undefined, 'nothing injected');
    assert.equal(reply.headers['bingapis-market'], 'en-US', 'the default market instead');
  });

  test('the profile server still serves the catalogue, each fault on its own', async () => {
    const list = json(await get(real.url, '/faults', undefined)) as { name: string }[];
    assert.equal(list.length, FAULTS.length, 'the whole catalogue');
    const year = json(await get(real.url, `/faults/evaluate-year-as-string${A}/evaluate?expr=Y%3E1900&attributes=Y`));
    assert.equal(typeof year.entities[0].Y, 'string', 'the named fault applies');
    assert.equal(year.aborted, false, 'without the profile');
  });

  test('the clean server accepts the page sizes real clients sent to evaluate', async () => {
    for (const count of ['1000', '10000']) {
      const reply = await get(clean.url, `${A}/evaluate?${qs({ expr: 'Y>1900', count })}`);
      assert.equal(reply.status, 200, `count=${count}: ${reply.text.slice(0, 200)}`);
      assert.equal(json(reply).entities.length, Math.min(Number(count), 10_000), `count=${count}: a full page`);
    }
    const over = await get(clean.url, `${A}/evaluate?${qs({ expr: 'Y>1900', count: '10001' })}`);
    assert.equal(over.status, 400, 'past 10,000 the page size is refused');
  });

  test('startReferenceServer refuses an unknown profile', async () => {
    await assert.rejects(
      startReferenceServer({ quiet: true, papers: 100, profile: 'strict' as never }),
      /profile must be one of clean, real/,
      'a RangeError naming the profiles',
    );
  });
});

describe('the real profile answers any parameters with a status the clean server could give', () => {
  // Every answer of the profile is rewritten (headers, exponent serializer, facts), so it gets its
  // own fuzzing: no 5xx, a JSON body, and the status the clean server gives for the same request.
  const FIELDS: Record<string, string[]> = {
    [`${A}/interpret`]: ['query', 'complete', 'count', 'offset', 'timeout'],
    [`${A}/evaluate`]: ['expr', 'count', 'offset', 'orderby', 'attributes'],
    [`${A}/calchistogram`]: ['expr', 'attributes', 'count', 'offset'],
    '/answersearch/v7.0/search': ['q', 'mkt', 'count', 'offset', 'safesearch'],
    '/urlpreview/v7.0/search': ['q'],
  };
  const value = fc.oneof(
    fc.constantFrom(
      '',
      '0',
      '3',
      '-1',
      'en-US',
      'valentines 2016',
      'Christmas 1999!',
      'Y>2005',
      'Id,Ti,Y',
      'https://a.test/',
    ),
    fc.string({ maxLength: 24 }),
    fc.string({ unit: 'grapheme', maxLength: 12 }),
  );
  for (const [path, fields] of Object.entries(FIELDS)) {
    test(path, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.dictionary(fc.constantFrom(...fields), value, { maxKeys: fields.length }),
          async (params) => {
            const target = `${path}?${qs(params)}`;
            const [base, profile] = await Promise.all([get(clean.url, target), get(real.url, target)]);
            assert.equal(profile.status, base.status, `${target}: ${profile.text.slice(0, 200)}`);
            assert.notEqual(profile.json, undefined, `${target}: the body is JSON`);
          },
        ),
        { numRuns: 60, seed: 9, endOnFailure: true },
      );
    });
  }
});
