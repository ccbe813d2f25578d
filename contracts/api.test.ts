import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  Api,
  type ApiSettings,
  BREAKER_POLL_MS,
  DeadlineReached,
  FrontServerRefused,
  isJsonMediaType,
  MAX_THROTTLE_RETRIES,
  op,
  PROBE_AFTER_MS,
  PROBE_TIMEOUT_MS,
  ResponseUnusable,
  SLOW_OPERATION_LIMIT,
  TargetBroken,
  TWIN_PROBE_AFTER_MS,
} from './api.ts';

const PREVIEW = {
  _type: 'WebPage',
  name: 'n',
  url: 'https://example.org/',
  description: 'd',
  primaryImageOfPage: { contentUrl: 'https://example.org/i.png' },
};
/** More throttled answers than a request's retries, fewer than its retries under contention. */
const CONTENDED_THROTTLES = MAX_THROTTLE_RETRIES + 4;
let contendedThrottles = 0;
let limitedOnce = false;
/** Requests that reached the server, by `METHOD path`. */
const arrivals = new Map<string, number>();
let server: Server;
let base: string;
const breakerDir = mkdtempSync(join(tmpdir(), 'kgate-api-'));

before(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    arrivals.set(`${req.method} ${path}`, (arrivals.get(`${req.method} ${path}`) ?? 0) + 1);
    const json = (
      status: number,
      body: unknown,
      type = 'application/json; charset=utf-8',
      headers: Record<string, string> = {},
    ) => {
      res.writeHead(status, { 'content-type': type, ...headers });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    // A front server with a 2 KB request line limit, as some gateways have: its own 414 page.
    if (path.startsWith('/front-2k') && (req.url ?? '').length > 2_000)
      return json(414, '<html><title>414 Request-URI Too Large</title></html>', 'text/html');
    if (path.startsWith('/front-414'))
      return json(414, '<html><title>414 Request-URI Too Large</title></html>', 'text/html');
    if (path.startsWith('/html')) return json(200, PREVIEW, 'text/html');
    if (path.startsWith('/broken')) return json(200, '{"_type": "WebPa');
    if (path.startsWith('/drop')) return json(200, { ...PREVIEW, url: undefined, primaryImageOfPage: undefined });
    if (path.startsWith('/extra')) return json(200, { ...PREVIEW, undocumentedField: 1 });
    if (path.startsWith('/teapot')) return json(418, { message: 'no' });
    // A front's HTML 429 to one request for its first CONTENDED_THROTTLES tries, while others get through.
    if (
      path.startsWith('/contended/') &&
      (req.url ?? '').includes('blocked') &&
      contendedThrottles++ < CONTENDED_THROTTLES
    )
      return json(429, '<html><title>429 Too Many Requests</title></html>', 'text/html');
    if (path.startsWith('/limited') && !limitedOnce) {
      limitedOnce = true;
      return json(
        429,
        { error: { statusCode: 429, message: 'Rate limit is exceeded. Try again in 1 seconds.' } },
        undefined,
        { 'retry-after': '0' },
      );
    }
    if (path.startsWith('/hang-one/') && path.endsWith('/hotevents')) return;
    // Evaluate hangs on both methods, or on GET only.
    if (path.startsWith('/hang-path/') && path.endsWith('/evaluate')) return;
    if (path.startsWith('/hang-get/') && path.endsWith('/evaluate') && req.method === 'GET') return;
    // Slow, never silent: URL preview answers after 2.5 s, hot events frames its 401 a byte every
    // 100 ms (8 s in all, past the probe's deadline), answer search sends its head and never ends.
    if (path.startsWith('/creeping/')) {
      if (path.endsWith('/urlpreview/v7.0/search')) return void setTimeout(() => json(200, PREVIEW), 2_500);
      if (path.endsWith('/hotevents') || path.endsWith('/answersearch/v7.0/search')) {
        res.writeHead(path.endsWith('/hotevents') ? 401 : 200, { 'content-type': 'application/json' });
        const text = `{"message":"${'x'.repeat(66)}"}`;
        let next = 0;
        const drip = setInterval(() => {
          if (res.destroyed || (path.endsWith('/hotevents') && next >= text.length)) {
            clearInterval(drip);
            return void res.end();
          }
          res.write(text[next++ % text.length]!);
        }, 100);
        res.on('close', () => clearInterval(drip));
        return;
      }
    }
    // Busy, never silent: evaluate and hot events (the probe) send nothing, while answer search
    // sends a byte every 100 ms without end (a target busy sending one answer holds back the rest).
    if (path.startsWith('/busy/')) {
      if (path.endsWith('/evaluate') || path.endsWith('/hotevents')) return;
      if (path.endsWith('/answersearch/v7.0/search')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        const drip = setInterval(() => res.write(' '), 100);
        res.on('close', () => clearInterval(drip));
        return;
      }
    }
    if (path.startsWith('/slow-path/') && path.endsWith('/evaluate')) {
      setTimeout(() => json(200, { expr: 'Y>2000', entities: [] }), 1_600);
      return;
    }
    if (path.startsWith('/slow-') && path.endsWith('/urlpreview/v7.0/search')) {
      setTimeout(() => json(200, PREVIEW), path.startsWith('/slow-long/') ? 1_600 : 250);
      return;
    }
    if (path.startsWith('/deep')) return json(200, `{"value":${'['.repeat(400_000)}${']'.repeat(400_000)}}`);
    if (path.startsWith('/wide'))
      return json(200, `{"value":{${Array.from({ length: 1_000_000 }, (_, i) => `"k${i}":0`).join(',')}}}`);
    if (path.startsWith('/hang/')) return;
    if (path.startsWith('/no-aborted')) return json(200, { query: 'q', interpretations: [] });
    return json(200, PREVIEW);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
  rmSync(breakerDir, { recursive: true, force: true });
});

/**
 * The deadline of requests that are answered: far above what a loaded machine takes to answer them
 * (so no latency finding or timeout comes of a busy moment), under the 7 s past which a request
 * unanswered for 2 s makes kgate probe the target.
 */
const ANSWERED_MS = 6_000;
/**
 * The deadline of clients that meet a hang: each hang costs one, and what they ask besides is
 * still answered well within it on a loaded machine.
 */
const HANG_MS = 2_000;

function api(prefix: string, extra: Partial<ApiSettings> = {}): Api {
  return new Api({
    baseUrl: `${base}${prefix}`,
    keys: { full: 'test-key-0001' },
    timeoutMs: ANSWERED_MS,
    maxBytes: 100_000,
    disabledChecks: new Set(),
    ...extra,
  });
}

test('the request fixture records what is wrong with a response on its operation, and goes on where it can', async () => {
  const cases = [
    { given: '/html', want: { check: 'content-type-is-json', usable: true } },
    { given: '/drop', want: { check: 'response-matches-spec', usable: true } },
    { given: '/teapot', want: { check: 'response-matches-spec', usable: true } },
    { given: '/broken', want: { check: 'body-is-json', usable: false } },
    { given: '/hang-one', want: { check: 'responds-within-timeout', usable: false } },
  ];
  for (const { given, want } of cases) {
    const client = api(given, given === '/hang-one' ? { timeoutMs: HANG_MS } : {});
    const operation = given === '/hang-one' ? op('hotEvents') : op('urlPreview');
    const call = client.call(operation, { params: { q: 'https://example.org/', date: '2024-01-01' } });
    if (want.usable) assert.equal((await call).request.method, 'GET', `${given}: the response is handed to the check`);
    else
      await assert.rejects(
        call,
        (error: unknown) => error instanceof ResponseUnusable && error.finding.check === want.check,
        `${given}: an unusable response ends the check with its finding`,
      );
    const finding = client.findings.find((candidate) => candidate.check === want.check);
    assert.ok(finding, `${given}: ${want.check} is recorded, got ${JSON.stringify(client.findings)}`);
    assert.equal(finding.operation, operation.label, `${given}: reported on the operation that answered`);
    assert.equal(finding.origin, 'fixture', `${given}: found by the request fixture`);
    assert.ok(!JSON.stringify(client.findings).includes('test-key-0001'), `${given}: the key is never in a finding`);
  }
});

test("a front server's refusal of a long GET is no finding and never trips the operation; of a short one, it is judged", async () => {
  const breaker = mkdtempSync(join(tmpdir(), 'kgate-api-front-'));
  try {
    const client = api('/front-2k', { breakerDir: breaker });
    const long = { q: `https://example.org/${'a'.repeat(3_000)}` };
    for (let i = 0; i < 3; i++)
      await assert.rejects(
        client.call(op('urlPreview'), { params: long }),
        (error: unknown) => error instanceof FrontServerRefused && error.refusal.status === 414,
        'a long GET refused by the front server is not judged',
      );
    assert.deepEqual(client.findings, [], 'no finding for a refusal beyond what the interface promises');
    const short = await client.call(op('urlPreview'), { params: { q: 'https://example.org/' } });
    assert.equal(short.status, 200, 'the operation is not given up on: three refusals later, a short request is sent');
    assert.equal(client.front.refused['head GET 414 text/html']?.count, 3);
    const judged = api('/front-414', { breakerDir: breaker });
    await assert.rejects(judged.call(op('urlPreview'), { params: { q: 'https://example.org/' } }), ResponseUnusable);
    assert.deepEqual(
      judged.findings.map((finding) => finding.check).sort(),
      ['body-is-json', 'content-type-is-json'],
      "a short GET refused the same way fails as any answer that is not the interface's",
    );
  } finally {
    rmSync(breaker, { recursive: true, force: true });
  }
});

test('discovery requests (judge: false) record nothing, but an unusable answer still ends them', async () => {
  const client = api('/drop', { judge: false });
  await client.call(op('urlPreview'), { params: { q: 'https://example.org/' } });
  assert.deepEqual(client.findings, [], 'an unjudged response leaves no finding');
  await assert.rejects(
    api('/broken', { judge: false }).call(op('urlPreview'), { params: { q: 'https://example.org/' } }),
    ResponseUnusable,
    'a body that is not JSON is unusable for discovery too',
  );
});

test('a field the spec expects is a warning when missing, and a failure under --strict', async () => {
  const cases = [
    { given: { strict: false }, want: 'warn' },
    { given: { strict: true }, want: 'fail' },
  ];
  for (const { given, want } of cases) {
    const client = api('/no-aborted', given);
    await client.call(op('interpretGet'), { params: { query: 'q' } });
    const finding = client.findings.find((candidate) => candidate.pointer === '/aborted');
    assert.equal(finding?.level, want, `strict=${given.strict}: ${JSON.stringify(client.findings)}`);
    assert.equal(finding?.check, 'response-matches-spec', 'the schema check reports it');
  }
});

test('undocumented fields pass, and an undocumented 4xx passes for a deliberately invalid request', async () => {
  assert.equal((await api('/extra').call(op('urlPreview'), { params: { q: 'https://example.org/' } })).status, 200);
  assert.equal((await api('/teapot').call(op('urlPreview'), { params: { q: 'x' }, intent: 'error' })).status, 418);
});

test('a 429 on an ordinary request is retried after the stated wait', async () => {
  const response = await api('/limited').call(op('urlPreview'), { params: { q: 'https://example.org/' } });
  assert.equal(response.status, 200);
});

test('a throttled request on a path whose other answers get through keeps its turn until the pace is slowest: contention is never judged', async () => {
  const client = api('/contended');
  let done = false;
  const blocked = client.call(op('urlPreview'), { params: { q: 'https://example.org/blocked' } }).finally(() => {
    done = true;
  });
  // Enough answers getting through between two of its tries to keep the path's pace from slowing.
  const others = Promise.all(
    Array.from({ length: 12 }, async () => {
      while (!done) {
        await client.call(op('urlPreview'), { params: { q: 'https://example.org/free' } });
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }),
  );
  const response = await blocked;
  await others;
  assert.equal(contendedThrottles, CONTENDED_THROTTLES + 1, 'throttled more often than a request retries alone');
  assert.equal(response.status, 200, 'answered once its turn came');
  assert.deepEqual(client.findings, [], 'a throttled answer is never judged as the answer');
});

test('a target that stops answering is given up on after one timeout and a failed probe', async () => {
  const client = api('/hang', { breakerDir, timeoutMs: HANG_MS });
  await assert.rejects(
    client.call(op('answerSearch'), { params: { q: 'x', mkt: 'en-US' } }),
    ResponseUnusable,
    'the first request times out',
  );
  const sent = client.requestCount;
  const started = performance.now();
  await assert.rejects(
    client.call(op('relatedEvents'), { params: { wikipediaid: 'X' } }),
    (error: unknown) => error instanceof TargetBroken && /stopped answering/.test(error.message),
    'the probe found the whole target silent: later requests are not sent',
  );
  assert.equal(client.requestCount, sent, 'a skipped request is not sent');
  assert.equal(arrivals.get('GET /hang/eventknowledge/v1.0/relatedevents'), undefined, 'nothing reached the target');
  // Half the deadline: a margin a loaded machine keeps, far from the deadline a sent request would cost.
  assert.ok(performance.now() - started < HANG_MS / 2, 'a skipped request costs no deadline');
});

test('with a long deadline, a silent target is given up on after the probe, not after the deadline', async () => {
  const client = api('/hang', { breakerDir: join(breakerDir, 'long'), timeoutMs: 30_000 });
  const started = performance.now();
  await assert.rejects(
    client.call(op('answerSearch'), { params: { q: 'x', mkt: 'en-US' } }),
    (error: unknown) => error instanceof ResponseUnusable && /did not answer a probe either/.test(error.message),
    'the request ends when the probe finds the target silent',
  );
  const seconds = (performance.now() - started) / 1000;
  // The probe answers within 2 + 5 s; 20 s leaves a loaded machine its margin and stays far from 30.
  assert.ok(seconds < 20, `ended after ${seconds.toFixed(1)} s, not after the 30 s deadline`);
});

test('slow is not down: a probe answered a byte at a time, or a request that got part of its answer, never marks the target down', async () => {
  const dir = join(breakerDir, 'slow-all');
  const probes = () => arrivals.get('GET /creeping/eventknowledge/v1.0/hotevents') ?? 0;
  // Unanswered after 2 s, URL preview has the target probed; the probe's answer is still arriving
  // at its 5 s deadline. The preview comes at 2.5 s.
  const slow = api('/creeping', { breakerDir: dir, timeoutMs: 12_000 });
  const started = performance.now();
  const preview = await slow.call(op('urlPreview'), { params: { q: 'https://example.org/' } });
  assert.equal(preview.status, 200, 'the slow answer is read');
  assert.equal(probes(), 1, 'the target was probed');
  // Wait out the probe's deadline: a probe that got bytes concludes nothing.
  await new Promise((resolve) =>
    setTimeout(resolve, Math.max(0, PROBE_AFTER_MS + PROBE_TIMEOUT_MS + 500 - (performance.now() - started))),
  );
  const other = await slow.call(op('relatedEvents'), { params: { wikipediaid: 'X' } });
  assert.equal(other.status, 200, 'the target is not judged down: later requests are sent');
  // A request whose answer started but did not end in time fails on its own deadline, probing nothing.
  const partial = api('/creeping', { breakerDir: dir, timeoutMs: HANG_MS });
  await assert.rejects(partial.call(op('answerSearch'), { params: { q: 'x', mkt: 'en-US' } }), ResponseUnusable);
  assert.equal(probes(), 1, 'no probe after a timeout that had received bytes');
  assert.equal((await partial.call(op('relatedEvents'), { params: { wikipediaid: 'X' } })).status, 200);
});

test('slow is not down: a probe that gets nothing while another worker is getting bytes never marks the target down', async () => {
  const dir = join(breakerDir, 'busy');
  const probes = () => arrivals.get('GET /busy/eventknowledge/v1.0/hotevents') ?? 0;
  // Two workers of one run (one breaker folder): the second reads a body arriving a byte at a time
  // while the first's evaluate and the probe it sends after 2 s get nothing at all.
  const first = api('/busy', { breakerDir: dir, timeoutMs: 8_000 });
  const second = api('/busy', { breakerDir: dir, timeoutMs: 9_000 });
  const reading = assert.rejects(
    second.call(op('answerSearch'), { params: { q: 'x', mkt: 'en-US' } }),
    ResponseUnusable,
    'the endless body fails on its own deadline',
  );
  await assert.rejects(
    first.call(op('evaluateGet'), { params: { expr: 'Y>2000' } }),
    (error: unknown) =>
      error instanceof ResponseUnusable &&
      error.finding.check === 'responds-within-timeout' &&
      !/did not answer a probe/.test(error.message),
    'evaluate fails on its own deadline, not as a target that stopped answering',
  );
  await reading;
  // Evaluate and its twin (POST, asked after 2 s) each probe once.
  assert.ok(probes() >= 1, 'the target was probed, and the probe got nothing');
  const other = await first.call(op('relatedEvents'), { params: { wikipediaid: 'X' } });
  assert.equal(other.status, 200, 'the target is not judged down: later requests are sent');
});

test('one operation that hangs breaks only that operation', async () => {
  const dir = join(breakerDir, 'one');
  const client = api('/hang-one', { breakerDir: dir, timeoutMs: HANG_MS });
  await assert.rejects(client.call(op('hotEvents'), { params: { date: '2024-01-01' } }), ResponseUnusable, 'times out');
  await assert.rejects(
    client.call(op('hotEvents'), { params: { date: '2024-01-01' } }),
    TargetBroken,
    'after a timeout the operation is given up on: a hang costs one deadline',
  );
  const other = await client.call(op('urlPreview'), { params: { q: 'https://example.org/' } });
  assert.equal(other.status, 200, 'the other operations are still asked');
});

test('a request waiting on an operation that timed out elsewhere stops waiting within one poll of the breaker', async () => {
  const dir = join(breakerDir, 'shared');
  // Two workers: one with a short deadline times out first; the other, with a long one, learns from the breaker file.
  const first = api('/hang-one', { breakerDir: dir, timeoutMs: 300 });
  const second = api('/hang-one', { breakerDir: dir, timeoutMs: 20_000 });
  const started = performance.now();
  const [a, b] = await Promise.allSettled([
    first.call(op('hotEvents'), { params: { date: '2024-01-01' } }),
    second.call(op('hotEvents'), { params: { date: '2024-01-01' } }),
  ]);
  const waited = performance.now() - started;
  assert.ok(a.status === 'rejected' && a.reason instanceof ResponseUnusable, 'the first times out');
  assert.ok(
    b.status === 'rejected' && b.reason instanceof TargetBroken,
    `the second is given up: ${String(b.status === 'rejected' && b.reason)}`,
  );
  assert.deepEqual(second.findings, [], 'the request given up on is not a finding of its own');
  // One poll of the breaker after the first's 300 ms on a quiet machine; half the 20 s deadline
  // is the margin a loaded one keeps.
  assert.ok(
    waited < 10_000,
    `the second stopped after ${Math.round(waited)} ms (polling every ${BREAKER_POLL_MS} ms), not after its 20 s deadline`,
  );
});

test('what the search for test data learns about an operation reaches every worker before its first request, and the reverse', async () => {
  for (const first of ['discovery', 'worker'] as const) {
    const dir = join(breakerDir, `learns-${first}`);
    // Each in a worker of its own: one Api per process, sharing only the run folder.
    const discovery = api('/hang-one', {
      breakerDir: dir,
      judge: false,
      readsSlowOperations: true,
      timeoutMs: HANG_MS,
    });
    const worker = api('/hang-one', { breakerDir: dir, timeoutMs: HANG_MS });
    const [meets, learns] = first === 'discovery' ? [discovery, worker] : [worker, discovery];
    await assert.rejects(meets.call(op('hotEvents'), { params: { date: '2024-01-01' } }), ResponseUnusable);
    const before = arrivals.get('GET /hang-one/eventknowledge/v1.0/hotevents');
    await assert.rejects(
      learns.call(op('hotEvents'), { params: { date: '2024-01-02' } }),
      (error: unknown) => error instanceof TargetBroken && /responds-within-timeout/.test(error.message),
      `${first} met the hang: the other is told before it sends`,
    );
    assert.equal(arrivals.get('GET /hang-one/eventknowledge/v1.0/hotevents'), before, 'no second request was sent');
    assert.match(learns.givenUpOn(op('hotEvents')) ?? '', /GET \/eventknowledge\/v1.0\/hotevents/);
    assert.equal(learns.givenUpOn(op('urlPreview')), undefined, 'only the hanging operation is given up on');
  }
});

test('a hang on one method of a path is tried at once on the other: both meet it within one deadline', async () => {
  const timeoutMs = 3_000;
  const client = api('/hang-path', { breakerDir: join(breakerDir, 'twin'), timeoutMs });
  const started = performance.now();
  await assert.rejects(client.call(op('evaluateGet'), { params: { expr: 'Y>2000' } }), ResponseUnusable);
  const waited = performance.now() - started;
  // Side by side they take one deadline and the twin's delay (4.5 s); one after the other, two whole
  // deadlines at least (6 s), which no machine shortens: the margin is a loaded machine's.
  assert.ok(
    waited < 2 * timeoutMs,
    `GET and POST timed out side by side in ${Math.round(waited)} ms (the twin after ${Math.min(TWIN_PROBE_AFTER_MS, timeoutMs / 2)} ms), not one deadline after the other`,
  );
  assert.deepEqual(
    client.findings.map((finding) => `${finding.check} ${finding.operation}`).sort(),
    ['responds-within-timeout GET /academic/v1.0/evaluate', 'responds-within-timeout POST /academic/v1.0/evaluate'],
    'each method is named by its own timeout',
  );
  await assert.rejects(client.call(op('evaluatePost'), { params: { expr: 'Y>2000' } }), TargetBroken);
  assert.equal(arrivals.get('POST /hang-path/academic/v1.0/evaluate'), 1, 'the other method was asked once');
  assert.equal(
    client.requestCount,
    4,
    'the twin counts among the requests sent (with the probe of the target after each timeout)',
  );

  // Only GET hangs: POST answers the same input and goes on being judged.
  const getOnly = api('/hang-get', { breakerDir: join(breakerDir, 'twin-get'), timeoutMs });
  await assert.rejects(getOnly.call(op('evaluateGet'), { params: { expr: 'Y>2000' } }), ResponseUnusable);
  assert.equal(getOnly.givenUpOn(op('evaluatePost')), undefined, 'POST answered: it is not given up on');
  assert.equal((await getOnly.call(op('evaluatePost'), { params: { expr: 'Y>2000' } })).status, 200);
});

test('latency-within-budget names a slow answer, and SLOW_OPERATION_LIMIT of them give the operation up', async () => {
  const cases: {
    given: Partial<ApiSettings> & { prefix: string };
    want: { findings: number; level?: string; givenUp: boolean };
  }[] = [
    // Answers the server holds back 1.6 s and 250 ms: past budgets below that on any machine, and
    // well within the deadline on a loaded one. The default budget, three quarters of the
    // deadline, is asserted below.
    {
      given: { prefix: '/slow-long', latencyBudgetMs: { '/urlpreview/v7.0/search': 1_000 } },
      want: { findings: 1, level: 'warn', givenUp: true },
    },
    {
      given: {
        prefix: '/slow-short',
        latencyBudgetMs: { '/urlpreview/v7.0/search': 100 },
        severity: { 'latency-within-budget': 'fail' },
      },
      want: { findings: 1, level: 'fail', givenUp: true },
    },
    {
      given: { prefix: '/slow-short', latencyBudgetMs: { '/urlpreview/v7.0/search': 5_000 } },
      want: { findings: 0, givenUp: false },
    },
    {
      given: {
        prefix: '/slow-short',
        latencyBudgetMs: { '/urlpreview/v7.0/search': 100 },
        disabledChecks: new Set(['latency-within-budget']),
      },
      want: { findings: 0, givenUp: false },
    },
  ];
  assert.equal(api('').latencyBudgetOf(op('urlPreview'), 2_000), 1_500, 'by default, three quarters of the deadline');
  assert.equal(
    api('', { latencyBudgetMs: { '/urlpreview/v7.0/search': 700 } }).latencyBudgetOf(op('urlPreview'), 2_000),
    700,
    "the configuration file's budget for the path",
  );
  for (const [index, { given, want }] of cases.entries()) {
    const { prefix, ...settings } = given;
    const client = api(prefix, { breakerDir: join(breakerDir, `slow-${index}`), ...settings });
    for (let i = 0; i < SLOW_OPERATION_LIMIT; i++)
      await client.call(op('urlPreview'), { params: { q: 'https://example.org/' } });
    const latency = client.findings.filter((finding) => finding.check === 'latency-within-budget');
    assert.equal(latency.length, want.findings, JSON.stringify(given));
    if (want.level) assert.equal(latency[0]!.level, want.level);
    const next = client.call(op('urlPreview'), { params: { q: 'https://example.org/' } });
    if (want.givenUp) {
      await assert.rejects(next, TargetBroken, 'given up after three slow answers');
      // The search for test data still reads it: slow answers are slow, not unusable.
      const discovery = api(prefix, {
        breakerDir: join(breakerDir, `slow-${index}`),
        ...settings,
        judge: false,
        readsSlowOperations: true,
      });
      assert.equal((await discovery.call(op('urlPreview'), { params: { q: 'https://example.org/' } })).status, 200);
    } else assert.equal((await next).status, 200);
    assert.equal(
      (await client.call(op('hotEvents'), { params: { date: '2024-01-01' } })).status,
      200,
      'others still asked',
    );
  }
});

test('a slow path is given up on both methods: the other method after one slow answer of its own', async () => {
  // Answers held back 1.6 s: past the budget on any machine, and 1.4 s within the deadline.
  const client = api('/slow-path', {
    breakerDir: join(breakerDir, 'slow-path'),
    timeoutMs: 3_000,
    latencyBudgetMs: { '/academic/v1.0/evaluate': 1_000 },
  });
  // The first GET is slow past half the deadline (the server's timer runs after the client's in
  // this one process): the same input goes to POST once, slow too.
  for (let i = 0; i < SLOW_OPERATION_LIMIT; i++) await client.call(op('evaluateGet'), { params: { expr: 'Y>2000' } });
  assert.equal(arrivals.get('POST /slow-path/academic/v1.0/evaluate'), 1, 'POST was asked once, by the probe');
  await assert.rejects(
    client.call(op('evaluatePost'), { params: { expr: 'Y>2000' } }),
    (error: unknown) => error instanceof TargetBroken && /an earlier answer of it, and 2 of GET/.test(error.message),
    'POST is given up on with GET: one slow answer of its own and GET given up for slowness',
  );
  assert.deepEqual(
    [...new Set(client.findings.filter((f) => f.check === 'latency-within-budget').map((f) => f.operation))].sort(),
    ['GET /academic/v1.0/evaluate', 'POST /academic/v1.0/evaluate'],
    'each method is named by its own slow answer',
  );
});

test('a body nested past the limit is refused before parsing, as body-within-size-cap', async () => {
  const client = api('/deep', { maxBytes: 2_000_000 });
  await assert.rejects(client.call(op('urlPreview'), { params: { q: 'https://example.org/' } }), ResponseUnusable);
  assert.deepEqual(
    client.findings.map((finding) => [finding.check, finding.title]),
    [['body-within-size-cap', 'response body nested deeper than the limit']],
  );
});

test('a body holding an object of a million members is refused before parsing, as body-within-size-cap', async () => {
  const client = api('/wide', { maxBytes: 16_000_000 });
  await assert.rejects(client.call(op('urlPreview'), { params: { q: 'https://example.org/' } }), ResponseUnusable);
  assert.deepEqual(
    client.findings.map((finding) => [finding.check, finding.title]),
    [['body-within-size-cap', 'response body holds an object wider than the limit']],
  );
  assert.match(client.findings[0]!.received, /holding an object of more than 10000 members, not parsed/);
});

test('no request is sent after the run deadline, and one in flight is cut short at it', async () => {
  const past = api('', { deadlineAt: Date.now() - 1 });
  await assert.rejects(past.call(op('urlPreview'), { params: { q: 'https://example.org/' } }), DeadlineReached);
  assert.equal(past.requestCount, 0);
  const soon = api('/hang', { deadlineAt: Date.now() + 200, timeoutMs: 20_000 });
  const started = performance.now();
  await assert.rejects(soon.call(op('urlPreview'), { params: { q: 'https://example.org/' } }), DeadlineReached);
  // 200 ms on a quiet machine; half the request's deadline is a loaded machine's margin.
  assert.ok(performance.now() - started < 10_000, 'cut at the run deadline, not the request deadline');
  assert.deepEqual(soon.findings, [], 'not a finding about the target');
});

test('isJsonMediaType accepts JSON media types only', () => {
  const cases = [
    { given: 'application/json; charset=utf-8', want: true },
    { given: 'application/problem+json', want: true },
    { given: 'text/html; charset=utf-8', want: false },
    { given: undefined, want: false },
  ];
  for (const { given, want } of cases) assert.equal(isJsonMediaType(given), want);
});
