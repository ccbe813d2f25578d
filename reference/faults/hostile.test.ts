import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type ReferenceServer, startReferenceServer } from '../index.ts';
import { HUGE_BODY_BYTES, SLOW_ANSWER_MS, SLOW_BODY, STRAY_RESPONSE } from './hostile.ts';

// Hostile faults break the transport, so they are probed with node:http directly: what arrives,
// how fast, and that the server still closes promptly while one of them holds a connection.

const PATH = '/answersearch/v7.0/search?q=jazz&mkt=en-US';

let server: ReferenceServer;

interface Probe {
  /** Status line, when headers arrived. */
  status?: number;
  contentType?: string;
  /** Bytes of body read before the probe stopped. */
  bytes: number;
  body: string;
  /** 'end' (complete), 'limit' (stopped reading), 'timeout', or the socket error code. */
  outcome: string;
  headersMs?: number;
  ms: number;
}

/** Sends one GET and reads at most `maxBytes` of the answer within `timeoutMs`. */
function probe(url: string, options: { timeoutMs: number; maxBytes?: number; keepBody?: boolean }): Promise<Probe> {
  const started = performance.now();
  return new Promise((resolve) => {
    const result: Probe = { bytes: 0, body: '', outcome: 'timeout', ms: 0 };
    const finish = (outcome: string) => {
      clearTimeout(timer);
      result.outcome = outcome;
      result.ms = performance.now() - started;
      req.destroy();
      resolve(result);
    };
    const req = request(url, { headers: { 'Ocp-Apim-Subscription-Key': server.keys.full }, agent: false }, (res) => {
      result.status = res.statusCode;
      result.contentType = res.headers['content-type'];
      result.headersMs = performance.now() - started;
      res.on('data', (chunk: Buffer) => {
        result.bytes += chunk.length;
        if (options.keepBody) result.body += chunk.toString();
        if (options.maxBytes !== undefined && result.bytes >= options.maxBytes) finish('limit');
      });
      res.on('end', () => finish('end'));
      res.on('error', (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
    });
    req.on('error', (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
    const timer = setTimeout(() => finish('timeout'), options.timeoutMs);
    req.end();
  });
}

before(async () => {
  server = await startReferenceServer({ quiet: true });
});

after(async () => {
  await server?.close();
});

describe('hostile faults', () => {
  const cases: {
    given: string;
    options: { timeoutMs: number; maxBytes?: number; keepBody?: boolean };
    want(p: Probe): void;
  }[] = [
    {
      given: 'hang',
      options: { timeoutMs: 800 },
      want: (p) => assert.deepEqual([p.status, p.outcome], [undefined, 'timeout']),
    },
    // Answers and resets get a deadline far above what a loaded machine takes for them: their own
    // outcome, not a timeout, must end them.
    {
      given: 'reset',
      options: { timeoutMs: 10_000 },
      want: (p) => assert.deepEqual([p.status, p.outcome], [undefined, 'ECONNRESET']),
    },
    {
      given: 'invalid-json',
      options: { timeoutMs: 10_000, keepBody: true },
      want(p) {
        assert.deepEqual([p.status, p.outcome], [200, 'end']);
        assert.match(p.contentType ?? '', /^application\/json/);
        assert.throws(() => JSON.parse(p.body), SyntaxError);
      },
    },
    {
      given: 'huge-body',
      options: { timeoutMs: 20_000, maxBytes: 8 * 1024 * 1024 },
      want(p) {
        assert.deepEqual([p.status, p.outcome], [200, 'limit']);
        assert.match(p.contentType ?? '', /^application\/json/);
      },
    },
    {
      // A byte a second: some of its 120 bytes, never all, within the deadline, the headers at once
      // (long before the deadline, which a loaded machine may hold a second back).
      given: 'slow-body',
      options: { timeoutMs: 4_500, keepBody: true },
      want(p) {
        assert.deepEqual([p.status, p.outcome], [200, 'timeout']);
        assert.ok((p.headersMs ?? Number.POSITIVE_INFINITY) < 3_000, `headers took ${p.headersMs} ms`);
        assert.ok(p.bytes >= 1 && p.bytes <= 5, `${p.bytes} bytes in 4.5 s`);
        assert.ok(SLOW_BODY.startsWith(p.body));
      },
    },
  ];

  for (const { given, options, want } of cases) {
    test(given, async () => {
      const clean = await probe(server.url + PATH, { timeoutMs: 10_000, keepBody: true });
      assert.deepEqual([clean.status, clean.outcome], [200, 'end'], 'the clean server answers normally');
      want(await probe(`${server.url}/faults/${given}${PATH}`, options));
    });
  }

  test('evaluate-slow-answers answers evaluate correctly, but only after SLOW_ANSWER_MS', async () => {
    const evaluate = `/academic/v1.0/evaluate?expr=${encodeURIComponent('Y>2012')}&count=1`;
    const clean = await probe(server.url + evaluate, { timeoutMs: 10_000, keepBody: true });
    const slow = await probe(`${server.url}/faults/evaluate-slow-answers${evaluate}`, {
      timeoutMs: 10_000,
      keepBody: true,
    });
    assert.deepEqual([slow.status, slow.outcome, slow.body], [clean.status, clean.outcome, clean.body]);
    // Milliseconds on a quiet machine: the slow answer's time is a loaded one's margin.
    assert.ok(clean.ms < SLOW_ANSWER_MS, `clean answer in ${clean.ms} ms`);
    assert.ok(slow.ms >= SLOW_ANSWER_MS, `slow answer in ${slow.ms} ms`);
  });

  test('evaluate-stray-response writes an unrequested response right after the real one', async () => {
    const evaluate = `/academic/v1.0/evaluate?expr=${encodeURIComponent('Y>2012')}&count=1`;
    const wire = await new Promise<string>((resolve, reject) => {
      const url = new URL(`${server.url}/faults/evaluate-stray-response${evaluate}`);
      const socket = connect(Number(url.port), url.hostname, () =>
        socket.write(
          `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nOcp-Apim-Subscription-Key: ${server.keys.full}\r\n\r\n`,
        ),
      );
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString('latin1');
        if (text.endsWith(STRAY_RESPONSE)) {
          socket.destroy();
          resolve(text);
        }
      });
      socket.on('error', reject);
      setTimeout(() => {
        socket.destroy();
        resolve(text);
      }, 10_000);
    });
    const [head = '', ...rest] = wire.split('\r\n\r\n');
    const length = Number(/content-length: (\d+)/i.exec(head)?.[1]);
    const body = rest.join('\r\n\r\n');
    assert.match(head, /^HTTP\/1\.1 200/);
    assert.ok(JSON.parse(body.slice(0, length)).entities, "the declared answer is evaluate's");
    assert.equal(body.slice(length), STRAY_RESPONSE, 'the stray response follows it');
  });

  test('huge-body ends after 100 MB when read to the end', async () => {
    const res = await probe(`${server.url}/faults/huge-body${PATH}`, { timeoutMs: 120_000 });
    assert.equal(res.outcome, 'end');
    assert.ok(res.bytes >= HUGE_BODY_BYTES && res.bytes < HUGE_BODY_BYTES + 128 * 1024, `${res.bytes} bytes`);
  });

  test('a hostile fault applies to every operation, before auth', async () => {
    const res = await probe(`${server.url}/faults/invalid-json/eventknowledge/v1.0/hotevents?date=2026-11-01`, {
      timeoutMs: 10_000,
    });
    assert.equal(res.status, 200);
  });

  test('close() returns promptly while hang and slow-body hold connections', async () => {
    const own = await startReferenceServer({ quiet: true, seed: 7 });
    const held = [
      probe(`${own.url}/faults/hang${PATH}`, { timeoutMs: 10_000 }),
      probe(`${own.url}/faults/slow-body${PATH}`, { timeoutMs: 10_000 }),
    ];
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = performance.now();
    await own.close();
    const probes = await Promise.all(held);
    // At once on a quiet machine; half the held probes' deadline is a loaded one's margin.
    assert.ok(performance.now() - started < 5_000, 'close() waited for the held connections');
    for (const p of probes) assert.notEqual(p.outcome, 'timeout', 'the held connection was not released');
  });
});
