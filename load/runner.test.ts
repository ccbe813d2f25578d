// test-runner: alone (it measures latencies against service times of 20 and 50 ms)
import assert from 'node:assert/strict';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import autocannon from 'autocannon';
import { expandMix, runLoad } from './runner.ts';
import type { MixRequest } from './scenarios.ts';

const servers: Server[] = [];
after(() => {
  for (const server of servers) server.closeAllConnections();
  return Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

async function serve(listener: RequestListener): Promise<string> {
  const server = createServer({ keepAlive: true }, listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const MIX: MixRequest[] = [
  {
    operationId: 'evaluateGet',
    group: 'academic',
    method: 'GET',
    path: '/academic/v1.0/evaluate',
    query: { expr: 'Y>2012' },
    weight: 3,
  },
  {
    operationId: 'similarityPost',
    group: 'similarity',
    method: 'POST',
    path: '/academic/v1.0/similarity',
    form: { s1: 'home', s2: 'house' },
    weight: 1,
  },
];

// Answers every request after `delayMs`, one at a time: a server with a known service time.
function delayed(delayMs: number): RequestListener {
  return (req, res) => {
    req.resume();
    req.on('end', () =>
      setTimeout(() => {
        res.setHeader('content-type', 'application/json; charset=utf-8');
        res.end('{"ok":true}');
      }, delayMs),
    );
  };
}

describe('open-model latency is measured from the intended send time', () => {
  test('queueing behind a slow server shows up in the latency (coordinated omission corrected)', async () => {
    // One connection, a 50 ms service time and 40 arrivals per second for one second: the server
    // answers 20/s,
    // so arrivals queue and each one waits longer than the one before. The service time of every
    // request is ~50 ms; an honest measurement must report the waiting too.
    const url = await serve(delayed(50));
    const result = await runLoad({
      baseUrl: url,
      startRate: 40,
      stages: [{ durationS: 1, target: 40 }],
      connections: 1,
      validateShare: 0,
      mix: MIX,
    });
    assert.equal(result.sent + result.dropped, 40, 'the schedule plans 40 arrivals');
    assert.ok(result.latencyMs.p50 >= 50, `p50 ${result.latencyMs.p50} ms includes at least one service time`);
    assert.ok(
      result.latencyMs.p99 > 500,
      `p99 ${result.latencyMs.p99} ms must include the queueing (service time is 50 ms)`,
    );
    assert.ok(result.latencyMs.max >= result.latencyMs.p99);
  });

  test('the same server measured by autocannon alone reports only the service time', async () => {
    // The contrast: autocannon times each request from its actual send, so the queue is invisible.
    const url = await serve(delayed(50));
    const native = await autocannon({ url, connections: 1, amount: 20 });
    // Below the 500 ms the open model must report for the same server (above): the queue is not
    // in it. Close to the 50 ms service time on a quiet machine; the rest is a loaded one's margin.
    assert.ok(native.latency.p99 < 500, `autocannon p99 ${native.latency.p99} ms is close to the 50 ms service time`);
  });

  test('with enough connections the latency is the service time', async () => {
    // 100 arrivals a second on 10 connections of a 20 ms server (500 a second): no queue. On one
    // connection (50 a second) half the arrivals would queue, the median waiting about 500 ms.
    const url = await serve(delayed(20));
    const result = await runLoad({
      baseUrl: url,
      startRate: 100,
      stages: [{ durationS: 1, target: 100 }],
      connections: 10,
      validateShare: 0,
      mix: MIX,
    });
    assert.equal(result.sent, 100);
    assert.equal(result.failed, 0);
    // About 20 ms on a quiet machine; up to 150 ms is a loaded one's margin, far below a queue.
    assert.ok(result.latencyMs.p50 >= 20 && result.latencyMs.p50 < 150, `p50 ${result.latencyMs.p50} ms`);
    assert.ok(result.latencyMs.min >= 19, 'no request is measured shorter than the service time');
  });

  test('sub-millisecond latencies keep their resolution', async () => {
    const url = await serve((_req, res) => res.end('{}'));
    const result = await runLoad({
      baseUrl: url,
      startRate: 100,
      stages: [{ durationS: 1, target: 100 }],
      connections: 4,
      validateShare: 0,
      mix: MIX,
    });
    // Under a millisecond on a quiet machine; a loaded one's margin, not the resolution, is what 50 ms allows.
    assert.ok(result.latencyMs.p50 < 50, `p50 ${result.latencyMs.p50} ms`);
    assert.notEqual(result.latencyMs.p50, Math.round(result.latencyMs.p50), 'values are not rounded to whole ms');
  });
});

describe('statuses, failures and validation', () => {
  test('non-2xx answers fail, every response is counted by status and operation, the share is validated', async () => {
    const seen: string[] = [];
    const url = await serve((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      req.resume();
      res.statusCode = req.method === 'POST' ? 500 : 200;
      res.setHeader('content-type', 'application/json; charset=utf-8');
      res.end(req.method === 'POST' ? '{"error":{"code":"Unspecified","message":"boom"}}' : '{"entities":[]}');
    });
    const validated: string[] = [];
    const result = await runLoad(
      {
        baseUrl: url,
        key: 'test-key-1234',
        startRate: 80,
        stages: [{ durationS: 1, target: 80 }],
        connections: 8,
        validateShare: 0.5,
        mix: MIX,
      },
      {
        validate: (operationId, status, contentType, body) => {
          validated.push(operationId);
          assert.equal(contentType, 'application/json; charset=utf-8');
          const valid = status === 200 && typeof body === 'object';
          return { valid, errors: valid ? [] : [{ pointer: '/error', message: 'not documented' }] };
        },
      },
    );
    assert.equal(result.sent, 80);
    assert.equal(result.completed, 80);
    assert.equal((result.statuses['200'] ?? 0) + (result.statuses['500'] ?? 0), 80);
    assert.equal(result.failed, result.statuses['500']);
    assert.ok(
      result.validation.checked >= 20 && result.validation.checked <= 60,
      `about half of 80 validated: ${result.validation.checked}`,
    );
    assert.equal(result.validation.invalid, result.validation.checked - result.validation.valid);
    assert.ok(result.validation.invalid > 0 && result.validation.samples.length > 0, 'both operations are sampled');
    assert.deepEqual(Object.keys(result.operations), ['evaluateGet', 'similarityPost']);
    assert.equal(result.operations.similarityPost!.failed, result.operations.similarityPost!.count);
    assert.ok(seen.some((line) => line.startsWith('GET /academic/v1.0/evaluate?expr=Y%3E2012')));
    assert.ok(result.timeline.length >= 1 && result.timeline[0]!.sent > 0);
  });

  test('a base URL with a path: every request goes under it, trailing slash or not', async () => {
    for (const prefix of ['/api', '/api/', '/v1/my%20api']) {
      const seen: string[] = [];
      const url = await serve((req, res) => {
        seen.push(req.url ?? '');
        req.resume();
        req.on('end', () => res.end('{}'));
      });
      const result = await runLoad({
        baseUrl: `${url}${prefix}`,
        startRate: 40,
        stages: [{ durationS: 0.5, target: 40 }],
        connections: 4,
        validateShare: 0,
        mix: MIX,
      });
      const base = prefix.replace(/\/$/, '');
      assert.equal(result.sent, seen.length, 'every request arrived');
      assert.ok(seen.length >= 19, `${seen.length} requests`);
      const stray = seen.filter((path) => !path.startsWith(`${base}/academic/v1.0/`));
      assert.deepEqual(stray, [], `every request goes under ${base}`);
      assert.ok(seen.includes(`${base}/academic/v1.0/evaluate?expr=Y%3E2012`), 'the query string is kept');
    }
  });

  test('the validated share goes through the shared client, with its size cap; the rest through autocannon', async () => {
    // autocannon writes `Connection: keep-alive` on every request; kgate's shared client writes no
    // Connection header. POST answers are over the shared client's 8 MiB cap.
    const arrivals: { method: string; autocannon: boolean }[] = [];
    const big = Buffer.alloc(9 * 1024 * 1024, 0x20);
    const url = await serve((req, res) => {
      arrivals.push({ method: req.method ?? '', autocannon: req.headers.connection === 'keep-alive' });
      req.resume();
      req.on('end', () => {
        res.setHeader('content-type', 'application/json; charset=utf-8');
        res.end(req.method === 'POST' ? big : '{"entities":[]}');
      });
    });
    const plan = { baseUrl: url, startRate: 40, stages: [{ durationS: 1, target: 40 }], connections: 4, mix: MIX };
    const validate = () => ({ valid: true, errors: [] });
    const all = await runLoad({ ...plan, validateShare: 1 }, { validate });
    assert.equal(arrivals.length, 40);
    assert.ok(
      arrivals.every((arrival) => !arrival.autocannon),
      'every validated request came through the shared client',
    );
    const posts = arrivals.filter((arrival) => arrival.method === 'POST').length;
    assert.ok(posts > 0, 'the mix has POSTs');
    assert.equal(all.transportErrors, posts, 'answers over the size cap are no answer');
    assert.equal(all.validation.checked, 40 - posts, 'every answer read was validated');
    assert.equal(all.completed, 40 - posts);

    arrivals.length = 0;
    const none = await runLoad({ ...plan, validateShare: 0 }, { validate });
    assert.ok(
      arrivals.every((arrival) => arrival.autocannon),
      'with nothing validated every request is autocannon',
    );
    assert.equal(none.validation.checked, 0);
    assert.equal(none.transportErrors, 0, 'autocannon reads any size');
  });

  test('a target that drops connections yields transport errors, not a hang', async () => {
    const url = await serve((req) => req.socket.destroy());
    const result = await runLoad({
      baseUrl: url,
      startRate: 20,
      stages: [{ durationS: 1, target: 20 }],
      connections: 2,
      validateShare: 0,
      mix: MIX,
      timeoutS: 2,
    });
    assert.equal(result.completed, 0);
    assert.ok(result.transportErrors > 0);
    assert.equal(result.failed, result.transportErrors + result.dropped);
    // One second of arrivals and a 2 s deadline; 30 s is a loaded machine's margin, far from a hang.
    assert.ok(result.elapsedS < 30, `bounded: ${result.elapsedS} s`);
  });

  test('closed model at maximum rate runs for its duration', async () => {
    const url = await serve((_req, res) => res.end('{}'));
    const result = await runLoad({
      baseUrl: url,
      startRate: 0,
      stages: [],
      maxRate: { durationS: 1 },
      connections: 4,
      validateShare: 0,
      mix: MIX,
    });
    assert.equal(result.model, 'closed');
    assert.equal(result.plannedArrivals, null);
    // Thousands a second on a quiet machine: it keeps sending for the whole second, one after another.
    assert.ok(result.sent > 50, `${result.sent} requests in a second`);
    assert.equal(result.failed, 0);
  });
});

test('the mix is interleaved across connections, not cycled per connection', async () => {
  // 40 connections at 200/s: if each connection walked the list on its own, connections moving
  // in step would send runs of 40 identical operations.
  const order: string[] = [];
  const url = await serve((req, res) => {
    order.push(req.method === 'POST' ? 'similarityPost' : 'evaluateGet');
    req.resume();
    req.on('end', () => res.end('{}'));
  });
  const result = await runLoad({
    baseUrl: url,
    startRate: 200,
    stages: [{ durationS: 1, target: 200 }],
    connections: 40,
    validateShare: 0,
    mix: MIX,
  });
  assert.equal(result.sent, 200);
  let longestRun = 0;
  let run = 0;
  for (let i = 0; i < order.length; i++) {
    run = i > 0 && order[i] === order[i - 1] ? run + 1 : 1;
    longestRun = Math.max(longestRun, run);
  }
  assert.ok(longestRun <= 8, `longest run of one operation: ${longestRun} (weights 3:1)`);
  assert.equal(order.filter((op) => op === 'similarityPost').length, 50);
});

describe('expandMix', () => {
  const cases = [
    { given: [3, 1], want: { evaluateGet: 75, similarityPost: 25 } },
    { given: [1, 1], want: { evaluateGet: 50, similarityPost: 50 } },
  ];
  for (const { given, want } of cases) {
    test(`weights ${given.join(':')} give shares ${JSON.stringify(want)}`, () => {
      const mix = MIX.map((entry, i) => ({ ...entry, weight: given[i]! }));
      const list = expandMix(mix, 'k-123456', {}, '/api');
      const counts: Record<string, number> = {};
      for (const request of list) counts[request.operationId] = (counts[request.operationId] ?? 0) + 1;
      assert.deepEqual(counts, want);
      assert.equal(list[0]!.headers!['Ocp-Apim-Subscription-Key'], 'k-123456');
      const post = list.find((r) => r.method === 'POST')!;
      assert.equal(post.body, 's1=home&s2=house');
      assert.equal(post.path, '/api/academic/v1.0/similarity', 'paths go under the base path');
      assert.equal(post.headers!['Content-Type'], 'application/x-www-form-urlencoded');
      // Interleaved: the minority operation is not bunched at the end.
      assert.ok(list.slice(0, 10).some((r) => r.operationId === 'similarityPost'));
    });
  }
});
