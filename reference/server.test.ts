import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { validateResponse } from '../openapi/validator.ts';
import { type ReferenceServer, startReferenceServer } from './index.ts';
import { DRAIN_MAX_MS } from './server.ts';
import { qs, RawConnection, type Reply, send } from './test-client.ts';

let server: ReferenceServer;
before(async () => {
  server = await startReferenceServer({ papers: 2000, quiet: true });
});
after(() => server.close());

const get = (path: string, key: string | undefined = server.keys.full) => send(server.url, path, { key });

function assertSpec(operationId: string, reply: Reply): void {
  const result = validateResponse(operationId, reply.status, String(reply.headers['content-type']), reply.json);
  assert.ok(
    result.valid,
    `${operationId} ${reply.status} ${JSON.stringify(result.errors.slice(0, 3))}: ${reply.text.slice(0, 300)}`,
  );
}

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type AnyJson = Record<string, any>;

describe('happy paths of every operation', () => {
  const cases: { given: { operationId: string; path: string; body?: string }; want: (body: AnyJson) => void }[] = [
    {
      given: {
        operationId: 'interpretGet',
        path: `/academic/v1.0/interpret?${qs({ query: 'papers by', complete: 1, count: 3 })}`,
      },
      want: (body) => assert.equal(body.query, 'papers by'),
    },
    {
      given: {
        operationId: 'interpretPost',
        path: '/academic/v1.0/interpret',
        body: 'query=papers+by&complete=1&count=3',
      },
      want: (body) => assert.equal(body.query, 'papers by'),
    },
    {
      given: {
        operationId: 'evaluateGet',
        path: `/academic/v1.0/evaluate?${qs({ expr: 'Y>2000', count: 10, attributes: 'Id,Ti,Y' })}`,
      },
      want: (body) => assert.ok(body.entities.length <= 10 && body.expr === 'Y>2000'),
    },
    {
      given: {
        operationId: 'evaluatePost',
        path: '/academic/v1.0/evaluate',
        body: 'expr=Y>2000&count=5&attributes=Id,Ti',
      },
      want: (body) => assert.ok(body.entities.length <= 5),
    },
    {
      given: {
        operationId: 'calchistogramGet',
        path: `/academic/v1.0/calchistogram?${qs({ expr: 'Y>2000', attributes: 'Y' })}`,
      },
      want: (body) => assert.equal(body.histograms.length, 1),
    },
    {
      given: {
        operationId: 'calchistogramPost',
        path: '/academic/v1.0/calchistogram',
        body: 'expr=Y>2000&attributes=Y,F.FN',
      },
      want: (body) => assert.equal(body.histograms.length, 2),
    },
    {
      given: {
        operationId: 'similarityGet',
        path: `/academic/v1.0/similarity?${qs({ s1: 'semantic indexing', s2: 'semantic analysis' })}`,
      },
      want: (body) => assert.ok(typeof body === 'number' && body >= -1 && body <= 1),
    },
    {
      given: { operationId: 'similarityPost', path: '/academic/v1.0/similarity', body: 's1=home&s2=home' },
      want: (body) => assert.equal(typeof body, 'number'),
    },
    {
      given: {
        operationId: 'answerSearch',
        path: `/answersearch/v7.0/search?${qs({ q: 'barack obama', mkt: 'en-US' })}`,
      },
      want: (body) => assert.equal(body.queryContext.originalQuery, 'barack obama'),
    },
    {
      given: { operationId: 'urlPreview', path: `/urlpreview/v7.0/search?${qs({ q: 'https://example.com/a?b=c' })}` },
      want: (body) => assert.equal(body.url, 'https://example.com/a?b=c'),
    },
    {
      given: { operationId: 'hotEvents', path: '/eventknowledge/v1.0/hotevents?date=2026-11-01' },
      want: (body) => assert.ok(body.value.length > 0),
    },
    {
      given: { operationId: 'relatedEvents', path: '/eventknowledge/v1.0/relatedevents?wikipediaid=Barack_Obama' },
      want: (body) => assert.equal(body.value.length, 10),
    },
  ];
  for (const { given, want } of cases) {
    test(`${given.operationId} ${given.path}`, async () => {
      const reply = await send(server.url, given.path, { key: server.keys.full, body: given.body });
      assert.equal(reply.status, 200, reply.text.slice(0, 300));
      assert.equal(reply.headers['content-type'], 'application/json; charset=utf-8');
      assertSpec(given.operationId, reply);
      want(reply.json as AnyJson);
    });
  }

  test('eventDocuments: documents of a listed event, newest first, as many as documentCount', async () => {
    const events = (await get('/eventknowledge/v1.0/hotevents?date=2024-02-29&$top=1')).json as AnyJson;
    const event = events.value[0];
    const reply = await get(`/eventknowledge/v1.0/events/${event.eventId}/documents?$top=100`);
    assertSpec('eventDocuments', reply);
    const docs = (reply.json as AnyJson).value as AnyJson[];
    assert.equal(docs.length, event.documentCount);
    assert.deepEqual(docs[0], event.topDocument);
    const dates = docs.map((doc) => doc.publishDate);
    assert.deepEqual(dates, [...dates].sort().reverse());
  });
});

describe('auth and quota in each group shape', () => {
  const paths: { group: string; operationId: string; path: string }[] = [
    { group: 'academic', operationId: 'evaluateGet', path: '/academic/v1.0/evaluate?expr=Y%3E2000' },
    { group: 'similarity', operationId: 'similarityGet', path: '/academic/v1.0/similarity?s1=a&s2=b' },
    { group: 'answerSearch', operationId: 'answerSearch', path: '/answersearch/v7.0/search?q=x&mkt=en-US' },
    { group: 'urlPreview', operationId: 'urlPreview', path: '/urlpreview/v7.0/search?q=https%3A%2F%2Fexample.com' },
    { group: 'eventKnowledge', operationId: 'hotEvents', path: '/eventknowledge/v1.0/hotevents?date=2026-11-01' },
  ];
  const shape = (group: string, status: number, body: AnyJson) => {
    if (group === 'academic' || group === 'similarity') {
      assert.equal(body.error.code, status === 403 ? 'QuotaExceeded' : 'Unspecified');
      assert.equal(typeof body.error.message, 'string');
    } else if (group === 'eventKnowledge') {
      assert.equal(body.statusCode, status);
      assert.equal(typeof body.message, 'string');
    } else {
      assert.equal(body.error.statusCode, status);
      assert.equal(typeof body.error.message, 'string');
    }
  };
  for (const { group, operationId, path } of paths) {
    const keys: { given: string; key: () => string | undefined; want: number }[] = [
      { given: 'no key', key: () => undefined, want: 401 },
      { given: 'an empty key', key: () => '', want: 401 },
      { given: 'a wrong key', key: () => 'not-a-key', want: 401 },
      {
        given: 'academicOnly',
        key: () => server.keys.academicOnly,
        want: group === 'academic' || group === 'similarity' ? 200 : 401,
      },
      { given: 'exhausted', key: () => server.keys.exhausted, want: 403 },
    ];
    for (const { given, key, want } of keys) {
      test(`${group} with ${given}: ${want}`, async () => {
        const reply = await send(server.url, path, { key: key() });
        assert.equal(reply.status, want, reply.text);
        if (want !== 200) shape(group, want, reply.json as AnyJson);
        if (want !== 200 && group !== 'academic') return; // the spec leaves some error bodies loose; shape() checked them
        assertSpec(operationId, reply);
      });
    }
  }

  test('config file keys: subscriptions and a quota that runs out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kgate-ref-'));
    const file = join(dir, 'keys.json');
    writeFileSync(
      file,
      JSON.stringify({
        keys: [
          { name: 'two-calls', key: 'two-calls-key-0001', subscriptions: ['answerSearch', 'eventKnowledge'], quota: 2 },
          { name: 'full', key: 'replaced-full-key-01', subscriptions: 'all' },
        ],
      }),
    );
    const configured = await startReferenceServer({ papers: 200, configFile: file, quiet: true });
    try {
      assert.equal(configured.keys.full, 'replaced-full-key-01');
      const path = '/answersearch/v7.0/search?q=x&mkt=en-US';
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await send(configured.url, path, { key: 'two-calls-key-0001' })).status);
      assert.deepEqual(statuses, [200, 200, 403]);
      const events = await send(configured.url, '/eventknowledge/v1.0/hotevents?date=2026-01-01', {
        key: 'two-calls-key-0001',
      });
      assert.deepEqual(events.json, { statusCode: 403, message: (events.json as AnyJson).message });
      const preview = await send(configured.url, '/urlpreview/v7.0/search?q=http%3A%2F%2Fa.b', {
        key: 'two-calls-key-0001',
      });
      assert.equal(preview.status, 401, 'not subscribed to URL preview');
    } finally {
      await configured.close();
    }
  });

  test('a malformed config file is refused with its name and the rule', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kgate-ref-'));
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ keys: [{ key: 'short', subscriptions: ['academic'] }] }));
    await assert.rejects(
      startReferenceServer({ configFile: file }),
      /bad\.json: keys\[0\]\.key must be a string of at least 8/,
    );
  });
});

describe('rate limit on answer search and URL preview', () => {
  test('a burst past the bucket gets 429 with seconds and Retry-After, then recovers', async () => {
    const limited = await startReferenceServer({ papers: 200, rateLimit: 4, quiet: true });
    try {
      const path = '/urlpreview/v7.0/search?q=https%3A%2F%2Fexample.com';
      const replies = await Promise.all(
        Array.from({ length: 6 }, () => send(limited.url, path, { key: limited.keys.full })),
      );
      const statuses = replies.map((reply) => reply.status).sort();
      assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429]);
      const rejected = replies.find((reply) => reply.status === 429)!;
      assert.equal(rejected.headers['retry-after'], '1');
      assert.deepEqual(rejected.json, {
        error: { statusCode: 429, message: 'Rate limit is exceeded. Try again in 1 seconds.' },
      });
      assertSpec('urlPreview', rejected);
      const other = await send(limited.url, '/answersearch/v7.0/search?q=x&mkt=en-US', { key: limited.keys.full });
      assert.equal(other.status, 200, 'answer search has its own bucket');
      const events = await Promise.all(
        Array.from({ length: 8 }, () =>
          send(limited.url, '/eventknowledge/v1.0/hotevents?date=2020-01-01', { key: limited.keys.full }),
        ),
      );
      assert.ok(
        events.every((reply) => reply.status === 200),
        'event knowledge is not rate limited',
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(
        (await send(limited.url, path, { key: limited.keys.full })).status,
        200,
        'a token is back after 1/rate s',
      );
    } finally {
      await limited.close();
    }
  });
});

describe('similarity body limit', () => {
  const body = (size: number) => `s1=${'a'.repeat(size - 8)}&s2=b`;
  const cases: { given: { limit: number; size: number }; want: number }[] = [
    { given: { limit: 2048, size: 2048 }, want: 200 },
    { given: { limit: 2048, size: 2049 }, want: 400 },
    { given: { limit: 1_048_576, size: 1_048_576 }, want: 200 },
    { given: { limit: 1_048_576, size: 1_048_577 }, want: 400 },
    { given: { limit: 1_048_576, size: 3_000_000 }, want: 400 },
  ];
  for (const { given, want } of cases) {
    test(`${given.size} bytes against a ${given.limit}-byte limit: ${want}`, async () => {
      const target =
        given.limit === 1_048_576
          ? server
          : await startReferenceServer({ papers: 200, bodyLimit: given.limit, quiet: true });
      try {
        const payload = body(given.size);
        assert.equal(Buffer.byteLength(payload), given.size);
        const reply = await send(target.url, '/academic/v1.0/similarity', { key: target.keys.full, body: payload });
        assert.equal(reply.status, want, reply.text.slice(0, 200));
        if (want === 400) {
          assert.deepEqual(reply.json, {
            error: { code: 'Bad Argument', message: `Request body exceeds ${given.limit} bytes` },
          });
          assertSpec('similarityPost', reply);
        }
      } finally {
        if (target !== server) await target.close();
      }
    });
  }

  test('a chunked body over the limit is refused', async () => {
    const reply = await send(server.url, '/academic/v1.0/similarity', {
      key: server.keys.full,
      body: body(2_000_000),
      headers: { 'transfer-encoding': 'chunked' },
    }).catch((error: Error) => error);
    assert.ok(!(reply instanceof Error), String(reply));
    assert.equal((reply as Reply).status, 400);
    // The interface's own refusal, not Node's 400 for a malformed request.
    assert.match((reply as Reply).text, /Request body exceeds 1048576 bytes/);
  });
});

describe('a refused body is read before the answer, as servers behind a front server must', () => {
  // A front server (nginx, a gateway) sends the whole body before it reads the answer. A server
  // that answered and closed while the body was still coming reset the connection under it, and
  // the front answered 502 instead of the interface's 400.
  const SIMILARITY = '/academic/v1.0/similarity';
  const head = (length: number, key: string | undefined = server.keys.full) =>
    `POST ${SIMILARITY} HTTP/1.1\r\nHost: kgate.test\r\n${key ? `Ocp-Apim-Subscription-Key: ${key}\r\n` : ''}Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${length}\r\n\r\n`;
  const bodyOf = (size: number) => `s1=${'a'.repeat(size - 8)}&s2=b`;
  const cases: { given: { title: string; size: number; key?: string }; want: { status: number; message: RegExp } }[] = [
    {
      given: { title: 'a similarity body over the 1 MiB limit', size: 2_000_000 },
      want: { status: 400, message: /^Request body exceeds 1048576 bytes$/ },
    },
    {
      given: { title: 'a body of a request refused for its missing key', size: 2_000_000, key: '' },
      want: { status: 401, message: /subscription key/i },
    },
  ];
  for (const { given, want } of cases) {
    test(`${given.title}: no answer until the body is all sent, then ${want.status}, no reset, the connection kept`, async () => {
      const raw = new RawConnection(server.url);
      try {
        const body = bodyOf(given.size);
        await raw.write(head(body.length, given.key ?? server.keys.full));
        await raw.write(body.slice(0, 100_000));
        await new Promise((resolve) => setTimeout(resolve, 400));
        assert.equal(raw.pending, 0, 'nothing is answered while the body still arrives');
        assert.equal(raw.ended, false, 'the connection is not closed while the body still arrives');
        await raw.write(body.slice(100_000));
        const answer = await raw.answer();
        assert.equal(answer.status, want.status, answer.text);
        const parsed = JSON.parse(answer.text) as { error: { message: string } };
        assert.match(parsed.error.message, want.message, "the interface's own error");
        assert.deepEqual(raw.errors, [], 'no write failed: the server read everything it was sent');
        await raw.write(
          `GET ${SIMILARITY}?s1=home&s2=house HTTP/1.1\r\nHost: kgate.test\r\nOcp-Apim-Subscription-Key: ${server.keys.full}\r\n\r\n`,
        );
        assert.equal((await raw.answer()).status, 200, 'the drained connection carries the next request');
      } finally {
        raw.destroy();
      }
    });
  }

  test('bounded in bytes: a body declared over 16 MiB is answered at once and the connection closed', async () => {
    const raw = new RawConnection(server.url);
    try {
      await raw.write(head(100 * 1024 * 1024));
      const answer = await raw.answer(2000);
      assert.equal(answer.status, 400);
      assert.equal(answer.headers.connection, 'close');
      assert.ok(await raw.closed(), 'the connection is closed after the answer');
    } finally {
      raw.destroy();
    }
  });

  test(`bounded in time: a body that stops arriving is answered after ${DRAIN_MAX_MS} ms and the connection closed`, async () => {
    const raw = new RawConnection(server.url);
    try {
      const started = Date.now();
      await raw.write(head(2_000_000));
      await raw.write(`s1=${'a'.repeat(50_000)}`);
      // Answered at DRAIN_MAX_MS; the rest is a loaded machine's margin.
      const answer = await raw.answer(DRAIN_MAX_MS + 20_000);
      const waited = Date.now() - started;
      assert.equal(answer.status, 400);
      assert.equal(answer.headers.connection, 'close');
      assert.ok(waited >= DRAIN_MAX_MS - 100, `waited ${waited} ms for the rest of the body`);
      assert.ok(await raw.closed(), 'the connection is closed after the answer');
    } finally {
      raw.destroy();
    }
  });
});

describe('request head limits', () => {
  // 20 KB of query: over Node's default 16 KB for the request line and headers, under the clean
  // profile's 256 KB.
  const path = `/academic/v1.0/similarity?${qs({ s1: 'a'.repeat(20_000), s2: 'b' })}`;
  test("the real profile keeps Node's default limit: a 20 KB GET gets 431 with an empty body", async () => {
    const real = await startReferenceServer({ papers: 200, quiet: true, profile: 'real' });
    try {
      const reply = await send(real.url, path, { key: real.keys.full });
      assert.equal(reply.status, 431);
      assert.equal(reply.text, '');
      assert.equal(
        (await send(real.url, '/academic/v1.0/similarity?s1=home&s2=house', { key: real.keys.full })).status,
        200,
      );
    } finally {
      await real.close();
    }
  });
  test('the clean profile answers the same GET', async () => {
    assert.equal((await get(path)).status, 200);
  });
});

describe('GET and POST agree, bodies need not be encoded', () => {
  const cases: { given: { op: string; get: string; post: string } }[] = [
    { given: { op: 'similarity', get: qs({ s1: 'home', s2: 'house' }), post: 's1=home&s2=house' } },
    {
      given: {
        op: 'similarity',
        get: qs({ s1: 'latent semantic', s2: 'semantic' }),
        post: 's1=latent semantic&s2=semantic',
      },
    },
    {
      given: {
        op: 'evaluate',
        get: qs({ expr: 'Y>2005', count: 3, attributes: 'Id,Y' }),
        post: 'expr=Y>2005&count=3&attributes=Id,Y',
      },
    },
    { given: { op: 'evaluate', get: qs({ expr: 'Y>2005', count: 3 }), post: 'expr=Y%3E2005&count=3' } },
    { given: { op: 'calchistogram', get: qs({ expr: 'Y>2005', attributes: 'Y' }), post: 'expr=Y>2005&attributes=Y' } },
    { given: { op: 'interpret', get: qs({ query: 'papers by', count: 2 }), post: 'query=papers by&count=2' } },
    { given: { op: 'interpret', get: qs({ query: 'papers by', count: 2 }), post: 'query=papers+by&count=2' } },
  ];
  for (const { given } of cases) {
    test(`${given.op}: POST ${given.post} == GET ?${given.get}`, async () => {
      const viaGet = await get(`/academic/v1.0/${given.op}?${given.get}`);
      const viaPost = await send(server.url, `/academic/v1.0/${given.op}`, { key: server.keys.full, body: given.post });
      assert.equal(viaGet.status, 200, viaGet.text.slice(0, 200));
      assert.equal(viaPost.status, viaGet.status);
      assert.deepEqual(viaPost.json, viaGet.json);
    });
  }

  test('an unencoded Composite expression posts like its encoded GET', async () => {
    const names = ((await get('/academic/v1.0/evaluate?expr=Y%3E1900&count=1&attributes=AA.AuN')).json as AnyJson)
      .entities;
    const author = names[0].AA[0].AuN as string;
    const expr = `Composite(AA.AuN=='${author}')`;
    const viaGet = await get(`/academic/v1.0/evaluate?${qs({ expr, attributes: 'Id' })}`);
    const viaPost = await send(server.url, '/academic/v1.0/evaluate', {
      key: server.keys.full,
      body: `expr=${expr}&attributes=Id`,
    });
    assert.equal(viaGet.status, 200);
    assert.ok(((viaGet.json as AnyJson).entities as unknown[]).length > 0);
    assert.deepEqual(viaPost.json, viaGet.json);
  });
});

describe('answer search', () => {
  test('ranking ids and indexes all resolve', async () => {
    const body = (await get(`/answersearch/v7.0/search?${qs({ q: 'seattle weather', mkt: 'en-GB', count: 5 })}`))
      .json as AnyJson;
    const ids = new Map<string, unknown>();
    ids.set(body.facts.id, body.facts);
    for (const answer of ['webPages', 'entities'] as const)
      for (const item of body[answer].value) ids.set(item.id, item);
    const items = [...body.rankingResponse.mainline.items, ...body.rankingResponse.sidebar.items];
    assert.ok(items.length >= 6);
    for (const item of items) {
      if (item.value) assert.ok(ids.has(item.value.id), `dangling ${item.value.id}`);
      if (item.resultIndex !== undefined) {
        const answer = item.answerType === 'WebPages' ? body.webPages : body.entities;
        assert.equal(answer.value[item.resultIndex].id, item.value.id);
      }
    }
    const rules = body.entities.value.flatMap((entity: AnyJson) =>
      entity.contractualRules.map((rule: AnyJson) => rule._type),
    );
    assert.deepEqual(
      new Set(rules),
      new Set([
        'ContractualRules/LicenseAttribution',
        'ContractualRules/LinkAttribution',
        'ContractualRules/MediaAttribution',
      ]),
    );
  });

  test('consecutive pages join into the whole list; past the end is empty', async () => {
    const path = (params: Record<string, string | number>) =>
      `/answersearch/v7.0/search?${qs({ q: 'jazz', mkt: 'en-US', ...params })}`;
    const all = (await get(path({ count: 1000 }))).json as AnyJson;
    const total = all.webPages.totalEstimatedMatches as number;
    assert.equal(all.webPages.value.length, total);
    const joined: string[] = [];
    for (let offset = 0; offset < total; offset += 7) {
      joined.push(
        ...((await get(path({ count: 7, offset }))).json as AnyJson).webPages.value.map((page: AnyJson) => page.url),
      );
    }
    assert.deepEqual(
      joined,
      all.webPages.value.map((page: AnyJson) => page.url),
    );
    assert.deepEqual(((await get(path({ offset: total }))).json as AnyJson).webPages.value, []);
  });

  test('safesearch Strict keeps only family friendly pages; Off may show others', async () => {
    const pages = async (safesearch: string) =>
      (
        (await get(`/answersearch/v7.0/search?${qs({ q: 'night markets', mkt: 'en-US', count: 1000, safesearch })}`))
          .json as AnyJson
      ).webPages.value as AnyJson[];
    assert.ok((await pages('Strict')).every((page) => page.isFamilyFriendly));
    assert.ok((await pages('Off')).some((page) => !page.isFamilyFriendly));
  });

  const invalid: { given: Record<string, string>; want: string }[] = [
    { given: { mkt: 'en-US' }, want: 'q' },
    { given: { q: 'x' }, want: 'mkt' },
    { given: { q: 'x', mkt: 'xx-XX' }, want: 'mkt' },
    { given: { q: 'x', mkt: 'en-US', count: '-1' }, want: 'count' },
    { given: { q: 'x', mkt: 'en-US', count: '1001' }, want: 'count' },
    { given: { q: 'x', mkt: 'en-US', offset: '1.5' }, want: 'offset' },
    { given: { q: 'x', mkt: 'en-US', safesearch: 'Sometimes' }, want: 'safesearch' },
  ];
  for (const { given, want } of invalid) {
    test(`${JSON.stringify(given)}: 400 naming ${want}`, async () => {
      const reply = await get(`/answersearch/v7.0/search?${qs(given)}`);
      assert.equal(reply.status, 400);
      assert.equal((reply.json as AnyJson).errors[0].parameter, want);
      assertSpec('answerSearch', reply);
    });
  }
});

describe('URL preview', () => {
  const cases: { given: string; want: number }[] = [
    { given: 'https://example.com', want: 200 },
    { given: 'http://127.0.0.1:8080/x?y=1#z', want: 200 },
    { given: 'example.com', want: 400 },
    { given: 'ftp://example.com/file', want: 400 },
    { given: 'https://', want: 400 },
    { given: 'javascript:alert(1)', want: 400 },
    { given: ' ', want: 400 },
  ];
  for (const { given, want } of cases) {
    test(`q=${JSON.stringify(given)}: ${want}`, async () => {
      const reply = await get(`/urlpreview/v7.0/search?${qs({ q: given })}`);
      assert.equal(reply.status, want);
      assertSpec('urlPreview', reply);
      if (want === 400) assert.equal((reply.json as AnyJson).errors[0].parameter, 'q');
    });
  }
});

describe('event knowledge', () => {
  test('hotevents: sorted by hotness (documentCount), pages join', async () => {
    const all = ((await get('/eventknowledge/v1.0/hotevents?date=2021-06-15&$top=100')).json as AnyJson)
      .value as AnyJson[];
    const counts = all.map((event) => event.documentCount);
    assert.deepEqual(
      counts,
      [...counts].sort((a, b) => b - a),
    );
    const first = ((await get('/eventknowledge/v1.0/hotevents?date=2021-06-15&$top=2')).json as AnyJson)
      .value as AnyJson[];
    const rest = ((await get('/eventknowledge/v1.0/hotevents?date=2021-06-15&$skip=2')).json as AnyJson)
      .value as AnyJson[];
    assert.deepEqual(
      [...first, ...rest].map((event) => event.eventId),
      all.map((event) => event.eventId),
    );
    for (const event of all) assert.match(event.eventId, /^[0-9a-f]{32}$/);
  });

  test('relatedevents: newest first, every event mentions the entity', async () => {
    const events = ((await get('/eventknowledge/v1.0/relatedevents?wikipediaid=Barack_Obama&$top=50')).json as AnyJson)
      .value as AnyJson[];
    const times = events.map((event) => Date.parse(event.from));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
    );
    assert.ok(events.every((event) => event.relatedEntities.includes('Barack Obama')));
  });

  const cases: { given: string; want: { status: number; body?: unknown } }[] = [
    { given: '/eventknowledge/v1.0/hotevents?date=1999-01-01', want: { status: 200, body: { value: [] } } },
    {
      given: '/eventknowledge/v1.0/relatedevents?wikipediaid=No_Such_Page',
      want: { status: 200, body: { value: [] } },
    },
    {
      given: '/eventknowledge/v1.0/events/0123456789abcdef0123456789abcdef/documents',
      want: { status: 404, body: { statusCode: 404, message: 'Resource not found' } },
    },
    {
      given: '/eventknowledge/v1.0/events/%zz/documents',
      want: { status: 404, body: { statusCode: 404, message: 'Resource not found' } },
    },
    { given: '/eventknowledge/v1.0/hotevents?date=2023-02-29', want: { status: 400 } },
    { given: '/eventknowledge/v1.0/hotevents?date=yesterday', want: { status: 400 } },
    { given: '/eventknowledge/v1.0/hotevents', want: { status: 400 } },
    { given: '/eventknowledge/v1.0/relatedevents', want: { status: 400 } },
    { given: '/eventknowledge/v1.0/hotevents?date=2023-02-28&$top=101', want: { status: 400 } },
    { given: '/eventknowledge/v1.0/hotevents?date=2023-02-28&$top=-1', want: { status: 400 } },
    { given: '/eventknowledge/v1.0/hotevents?date=2023-02-28&$skip=x', want: { status: 400 } },
    {
      given: '/eventknowledge/v1.0/hotevents?date=2023-02-28&$skip=100000',
      want: { status: 200, body: { value: [] } },
    },
  ];
  for (const { given, want } of cases) {
    test(`${given}: ${want.status}`, async () => {
      const reply = await get(given);
      assert.equal(reply.status, want.status, reply.text.slice(0, 200));
      if (want.body) assert.deepEqual(reply.json, want.body);
      if (want.status === 400) assert.equal((reply.json as AnyJson).statusCode, 400);
    });
  }
});

describe('routing', () => {
  const cases: { given: { method: string; path: string }; want: { status: number; body?: unknown } }[] = [
    {
      given: { method: 'GET', path: '/academic/v1.0/nothing' },
      want: { status: 404, body: { error: { code: 'Unspecified', message: 'Resource not found' } } },
    },
    {
      given: { method: 'GET', path: '/eventknowledge/v1.0/nothing' },
      want: { status: 404, body: { statusCode: 404, message: 'Resource not found' } },
    },
    {
      given: { method: 'GET', path: '/answersearch/v7.0/other' },
      want: { status: 404, body: { error: { statusCode: 404, message: 'Resource not found' } } },
    },
    {
      given: { method: 'GET', path: '/' },
      want: { status: 404, body: { statusCode: 404, message: 'Resource not found' } },
    },
    { given: { method: 'POST', path: '/answersearch/v7.0/search' }, want: { status: 405 } },
    { given: { method: 'DELETE', path: '/academic/v1.0/evaluate' }, want: { status: 405 } },
    { given: { method: 'GET', path: '/faults/no-such-fault/academic/v1.0/evaluate' }, want: { status: 404 } },
    { given: { method: 'PUT', path: '/faults' }, want: { status: 405 } },
  ];
  for (const { given, want } of cases) {
    test(`${given.method} ${given.path}: ${want.status}`, async () => {
      const reply = await send(server.url, given.path, { method: given.method, key: server.keys.full });
      assert.equal(reply.status, want.status);
      if (want.body) assert.deepEqual(reply.json, want.body);
      if (want.status === 405) assert.ok(reply.headers.allow);
    });
  }

  test('GET /faults lists the catalogue without a key; each name is a working base url', async () => {
    const reply = await send(server.url, '/faults');
    assert.equal(reply.status, 200);
    const faults = reply.json as AnyJson[];
    for (const fault of faults) {
      assert.match(fault.name, /^[a-z0-9]+(-[a-z0-9]+)*$/);
      assert.ok(['forbidden', 'drift', 'hostile', 'real', 'release'].includes(fault.deviation));
      assert.ok(Array.isArray(fault.operations) && typeof fault.description === 'string');
    }
    const calm = faults.find((fault) => fault.deviation !== 'hostile' && fault.group === 'eventKnowledge');
    if (calm) {
      const viaFault = await get(`/faults/${calm.name}/eventknowledge/v1.0/hotevents?date=2026-11-01`);
      assert.ok(viaFault.status < 500, viaFault.text.slice(0, 200));
    }
  });
});

describe('malformed requests never crash the server', () => {
  const cases: { given: { path: string; body?: string; headers?: Record<string, string> } }[] = [
    { given: { path: '/academic/v1.0/evaluate?expr=%E0%A4%A' } },
    { given: { path: '/academic/v1.0/evaluate?expr=%FF%FE' } },
    { given: { path: '/academic/v1.0/evaluate?expr=((((((((((' } },
    { given: { path: `/academic/v1.0/evaluate?expr=${'And('.repeat(5000)}` } },
    { given: { path: '/academic/v1.0/evaluate', body: 'expr=%FF' } },
    { given: { path: '/academic/v1.0/evaluate', body: '\u0000\u0001\u0002' } },
    { given: { path: '/academic/v1.0/interpret', body: `query=${'%'.repeat(1000)}` } },
    { given: { path: '/academic/v1.0/similarity', body: 's1=\ud800&s2=x' } },
    { given: { path: '/academic/v1.0/similarity?s1=&s2=' } },
    { given: { path: '/answersearch/v7.0/search?q=%00&mkt=en-US&count=99999999999999999999' } },
    { given: { path: '/answersearch/v7.0/search?q=x&mkt=en-US&offset=9007199254740993' } },
    { given: { path: '/urlpreview/v7.0/search?q=http://[::1' } },
    { given: { path: `/urlpreview/v7.0/search?q=${'http://a.b/'.padEnd(20_000, 'x')}` } },
    { given: { path: '/eventknowledge/v1.0/events/../../academic/documents' } },
    { given: { path: '/eventknowledge/v1.0/relatedevents?wikipediaid=__proto__' } },
    { given: { path: '/eventknowledge/v1.0/relatedevents?wikipediaid=constructor&$top=0' } },
    { given: { path: '/academic/v1.0/evaluate?__proto__=1&constructor=2&expr=Y=2000' } },
    { given: { path: '/faults/' } },
    { given: { path: '/faults//' } },
  ];
  for (const { given } of cases) {
    test(`${given.path.slice(0, 80)} ${given.body?.slice(0, 30) ?? ''}`, async () => {
      const reply = await send(server.url, given.path, {
        key: server.keys.full,
        body: given.body,
        headers: given.headers,
      });
      assert.ok(reply.status < 500, `${reply.status} ${reply.text.slice(0, 200)}`);
      assert.notEqual(reply.json, undefined, 'the answer is JSON');
    });
  }
});
