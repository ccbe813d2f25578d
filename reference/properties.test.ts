import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { validateResponse } from '../openapi/validator.ts';
import { type ReferenceServer, startReferenceServer } from './index.ts';
import { qs, type Reply, send } from './test-client.ts';

// Property tests over HTTP: about 3,000 generated requests across the 13 operations.
let server: ReferenceServer;
before(async () => {
  server = await startReferenceServer({ papers: 2000, rateLimit: 1_000_000, quiet: true });
});
after(() => server.close());

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type AnyJson = Record<string, any>;

const SEED = 20261122;
const run = (runs: number) => ({ numRuns: runs, seed: SEED, endOnFailure: true });

/** Statuses an operation may answer with; everything else (and any 5xx but a documented one) is a failure. */
const ALLOWED: Record<string, number[]> = {
  academic: [200, 400],
  similarity: [200, 400, 408],
  answerSearch: [200, 400],
  urlPreview: [200, 400],
  eventKnowledge: [200, 400, 404],
};

const OPERATIONS: { operationId: string; group: string; method: 'GET' | 'POST'; path: string; fields: string[] }[] = [
  ...['interpret', 'evaluate', 'calchistogram', 'similarity'].flatMap((name) =>
    (['GET', 'POST'] as const).map((method) => ({
      operationId: `${name}${method === 'GET' ? 'Get' : 'Post'}`,
      group: name === 'similarity' ? 'similarity' : 'academic',
      method,
      path: `/academic/v1.0/${name}`,
      fields: {
        interpret: ['query', 'complete', 'count', 'offset', 'timeout', 'model'],
        evaluate: ['expr', 'model', 'count', 'offset', 'orderby', 'attributes'],
        calchistogram: ['expr', 'model', 'attributes', 'count', 'offset'],
        similarity: ['s1', 's2'],
      }[name]!,
    })),
  ),
  {
    operationId: 'answerSearch',
    group: 'answerSearch',
    method: 'GET',
    path: '/answersearch/v7.0/search',
    fields: ['q', 'mkt', 'count', 'offset', 'safesearch'],
  },
  { operationId: 'urlPreview', group: 'urlPreview', method: 'GET', path: '/urlpreview/v7.0/search', fields: ['q'] },
  {
    operationId: 'hotEvents',
    group: 'eventKnowledge',
    method: 'GET',
    path: '/eventknowledge/v1.0/hotevents',
    fields: ['date', '$top', '$skip'],
  },
  {
    operationId: 'relatedEvents',
    group: 'eventKnowledge',
    method: 'GET',
    path: '/eventknowledge/v1.0/relatedevents',
    fields: ['wikipediaid', '$top', '$skip'],
  },
  {
    operationId: 'eventDocuments',
    group: 'eventKnowledge',
    method: 'GET',
    path: '/eventknowledge/v1.0/events/{id}/documents',
    fields: ['$top', '$skip'],
  },
];

/** Values that are sometimes valid, sometimes subtly not, sometimes garbage. */
const value = fc.oneof(
  fc.constantFrom(
    '',
    '0',
    '1',
    '10',
    '-1',
    '1.5',
    '1e3',
    '99999999999999999999',
    ' 5',
    'en-US',
    'EN-us',
    'xx-YY',
    'Off',
    'Strict',
    'moderate',
  ),
  fc.constantFrom(
    '2026-11-01',
    '2019-01-01',
    '2023-02-29',
    '2026-13-01',
    'Barack_Obama',
    'Paris',
    'https://example.com/a',
    'ftp://x',
    'http://',
  ),
  fc.constantFrom(
    'Y>2005',
    'Y=[2010,2012)',
    "Composite(AA.AuN=='x')",
    'And(Y>2000,Y<2010)',
    'Or(Id=1,Id=2,Id=3)',
    "Ti='a'...",
    'And(',
    'Y:asc',
    'Id,Ti,Y,AA.AuN,F.FN',
    'CC:desc',
  ),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.stringMatching(/^[A-Za-z0-9 '().,=<>[\]-]{0,40}$/),
);

const paramsFor = (fields: string[]) =>
  fc.dictionary(fc.oneof(fc.constantFrom(...fields), fc.constantFrom(...fields), fc.string({ maxLength: 8 })), value, {
    maxKeys: fields.length + 1,
  });

function pathOf(op: (typeof OPERATIONS)[number], eventId: string): string {
  return op.path.replace('{id}', encodeURIComponent(eventId));
}

function assertWellFormed(op: (typeof OPERATIONS)[number], reply: Reply): void {
  assert.ok(
    ALLOWED[op.group]!.includes(reply.status),
    `${op.operationId} answered ${reply.status}: ${reply.text.slice(0, 300)}`,
  );
  assert.equal(reply.headers['content-type'], 'application/json; charset=utf-8');
  assert.notEqual(reply.json, undefined, 'body is JSON');
  const result = validateResponse(op.operationId, reply.status, 'application/json', reply.json);
  if (result.documented)
    assert.ok(
      result.valid,
      `${op.operationId} ${reply.status}: ${JSON.stringify(result.errors.slice(0, 2))} ${reply.text.slice(0, 300)}`,
    );
}

describe('every operation answers any parameters with a documented status and a valid body', () => {
  for (const op of OPERATIONS) {
    test(op.operationId, async () => {
      await fc.assert(
        fc.asyncProperty(
          paramsFor(op.fields),
          fc.constantFrom('0123456789abcdef0123456789abcdef', 'x', '%41'),
          async (params, eventId) => {
            const encoded = qs(params);
            const reply =
              op.method === 'GET'
                ? await send(server.url, `${pathOf(op, eventId)}?${encoded}`, { key: server.keys.full })
                : await send(server.url, op.path, { key: server.keys.full, body: encoded });
            assertWellFormed(op, reply);
          },
        ),
        run(130),
      );
    });
  }
});

describe('GET and POST give identical answers', () => {
  for (const name of ['interpret', 'evaluate', 'calchistogram', 'similarity']) {
    const fields = OPERATIONS.find((op) => op.operationId === `${name}Get`)!.fields;
    test(`${name}: encoded form body == query string`, async () => {
      await fc.assert(
        fc.asyncProperty(paramsFor(fields), async (params) => {
          const encoded = new URLSearchParams(params).toString();
          const viaGet = await send(server.url, `/academic/v1.0/${name}?${encoded}`, { key: server.keys.full });
          const viaPost = await send(server.url, `/academic/v1.0/${name}`, { key: server.keys.full, body: encoded });
          // A cut-short answer (timeout) depends on timing, not on how the parameters were sent.
          const aborted = (reply: Reply) => (reply.json as { aborted?: boolean } | undefined)?.aborted === true;
          if (viaGet.status === 408 || viaPost.status === 408 || aborted(viaGet) || aborted(viaPost)) return;
          assert.equal(viaPost.status, viaGet.status);
          assert.deepEqual(viaPost.json, viaGet.json);
        }),
        run(120),
      );
    });
  }

  test('a body that was not percent-encoded == the encoded query string', async () => {
    const plain = fc.stringMatching(/^[A-Za-z0-9'().,<>[\]=-][A-Za-z0-9 '().,<>[\]=-]{0,30}$/);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('evaluate', 'calchistogram', 'interpret', 'similarity'),
        plain,
        plain,
        async (name, first, second) => {
          const [a, b] = {
            interpret: ['query', 'model'],
            evaluate: ['expr', 'attributes'],
            calchistogram: ['expr', 'attributes'],
            similarity: ['s1', 's2'],
          }[name]!;
          // A space anywhere marks the body as unencoded, as a hand-written one would be.
          const raw = `${a}=${first} &${b}=${second}`;
          const viaGet = await send(server.url, `/academic/v1.0/${name}?${qs({ [a!]: `${first} `, [b!]: second })}`, {
            key: server.keys.full,
          });
          const viaPost = await send(server.url, `/academic/v1.0/${name}`, { key: server.keys.full, body: raw });
          assert.equal(viaPost.status, viaGet.status, raw);
          assert.deepEqual(viaPost.json, viaGet.json);
        },
      ),
      run(300),
    );
  });
});

describe('paging', () => {
  test('answer search: any page is the slice of the whole list', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 12 }).filter((q) => q.trim() !== ''),
        fc.nat(30),
        fc.nat(120),
        async (q, count, offset) => {
          const whole = (
            await send(server.url, `/answersearch/v7.0/search?${qs({ q, mkt: 'en-US', count: 1000 })}`, {
              key: server.keys.full,
            })
          ).json as AnyJson;
          const part = (
            await send(server.url, `/answersearch/v7.0/search?${qs({ q, mkt: 'en-US', count, offset })}`, {
              key: server.keys.full,
            })
          ).json as AnyJson;
          const urls = (answer: AnyJson) => answer.webPages.value.map((page: AnyJson) => page.url);
          assert.deepEqual(urls(part), urls(whole).slice(offset, offset + count));
          assert.equal(part.queryContext.originalQuery, q);
        },
      ),
      run(150),
    );
  });

  test('event knowledge: any $top/$skip page is the slice of the whole list', async () => {
    const day = fc.date({
      min: new Date('2019-01-01T00:00:00Z'),
      max: new Date('2026-12-31T00:00:00Z'),
      noInvalidDate: true,
    });
    await fc.assert(
      fc.asyncProperty(day, fc.integer({ min: 0, max: 100 }), fc.nat(12), async (date, top, skip) => {
        const iso = date.toISOString().slice(0, 10);
        const whole = (
          await send(server.url, `/eventknowledge/v1.0/hotevents?date=${iso}&$top=100`, { key: server.keys.full })
        ).json as AnyJson;
        const part = (
          await send(server.url, `/eventknowledge/v1.0/hotevents?date=${iso}&$top=${top}&$skip=${skip}`, {
            key: server.keys.full,
          })
        ).json as AnyJson;
        assert.deepEqual(part.value, whole.value.slice(skip, skip + top));
        assert.ok(whole.value.length >= 2, 'several events per day');
        const event = whole.value[0];
        const docs = (
          await send(server.url, `/eventknowledge/v1.0/events/${event.eventId}/documents?$top=100`, {
            key: server.keys.full,
          })
        ).json as AnyJson;
        assert.equal(docs.value.length, event.documentCount);
      }),
      run(150),
    );
  });
});

describe('arbitrary bodies never crash a POST operation', () => {
  test('bytes, half-encoded text and huge field counts', async () => {
    const body = fc.oneof(
      fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
      fc.string({ maxLength: 200 }),
      fc
        .array(fc.tuple(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 })), { maxLength: 300 })
        .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&')),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('interpret', 'evaluate', 'calchistogram', 'similarity'),
        body,
        async (name, payload) => {
          const op = OPERATIONS.find((candidate) => candidate.operationId === `${name}Post`)!;
          const reply = await send(server.url, op.path, { key: server.keys.full, body: payload });
          assertWellFormed(op, reply);
        },
      ),
      run(300),
    );
  });
});
