// The body-limit probe against the reference server, its faults and test servers of its own, and
// its helpers. (Not alone, unlike rate-limit.test.ts: it measures sizes, not rates.)
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { validateResponse } from '../../openapi/validator.ts';
import { referenceServers } from '../../scripts/reference-servers.ts';
import type { ResponseValidator } from '../runner.ts';
import { accepted, answeredBy, bodyOfSize, MAX_REQUESTS, probeBodyLimit } from './body-limit.ts';

const validate: ResponseValidator = validateResponse;
const reference = referenceServers();

describe('body-limit probe', { concurrency: true }, () => {
  const cases = [
    {
      given: { bodyLimit: undefined, fault: undefined },
      want: { limit: 1_048_576, matches: '1 MiB (1,048,576 bytes)', over: 400, ok: true },
    },
    {
      given: { bodyLimit: 1_000_000, fault: undefined },
      want: { limit: 1_000_000, matches: '1 MB (1,000,000 bytes)', over: 400, ok: true },
    },
    {
      given: { bodyLimit: undefined, fault: 'similarity-no-body-limit' },
      want: { limit: null, matches: 'no limit found', over: null, ok: false },
    },
    {
      given: { bodyLimit: undefined, fault: 'similarity-body-limit-too-small' },
      want: { limit: 'other', matches: 'something else', over: 400, ok: false },
    },
    {
      given: { bodyLimit: undefined, fault: 'similarity-body-limit-413' },
      want: { limit: 1_048_576, matches: '1 MiB (1,048,576 bytes)', over: 413, ok: false },
    },
  ];
  for (const { given, want } of cases) {
    test(`${given.fault ?? `limit ${given.bodyLimit ?? 'default'}`}: ${want.matches}, ${want.over ?? 'nothing'} just over`, async () => {
      const server = await reference({ bodyLimit: given.bodyLimit });
      if (given.fault) {
        const names = ((await (await fetch(`${server.url}/faults`)).json()) as { name: string }[]).map((f) => f.name);
        assert.ok(names.includes(given.fault), `fault ${given.fault} is not in the catalogue`);
      }
      const baseUrl = given.fault ? `${server.url}/faults/${given.fault}` : server.url;
      const result = await probeBodyLimit({ baseUrl, key: server.keys.full, validate });
      if (want.limit === 'other') assert.ok(result.limitBytes !== null && result.limitBytes < 1_000_000);
      else assert.equal(result.limitBytes, want.limit);
      assert.equal(result.matches, want.matches);
      assert.equal(result.overStatus, want.over);
      assert.equal(result.overFrom, want.over === null ? null : 'target');
      assert.deepEqual(result.notes, []);
      assert.ok(result.requests <= MAX_REQUESTS, `${result.requests} requests`);
      assert.equal(result.healthyAfter, true);
      assert.equal(result.problems.length === 0, want.ok, result.problems.join('; '));
    });
  }
});

test('a target that resets the connection over its limit: the reset is reported as the rejection', async () => {
  // Closes the socket before any status once the declared body is over 5,000 bytes.
  const server = createServer((req, res) => {
    if (Number(req.headers['content-length']) > 5000) {
      req.socket.destroy();
      return;
    }
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json; charset=utf-8');
      res.end('0.5');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const result = await probeBodyLimit({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    assert.equal(result.limitBytes, 5000);
    assert.equal(result.overStatus, 'reset');
    assert.match(result.overDetail, /connection reset before any status/);
    assert.equal(result.matches, 'something else');
    assert.equal(result.healthyAfter, true);
    assert.ok(result.requests <= MAX_REQUESTS);
  } finally {
    server.close();
  }
});

describe('who answers just over the limit', () => {
  const cases = [
    {
      given: { type: 'text/html', body: '<html>413 Request Entity Too Large</html>', status: 413 },
      want: { from: 'front server', problem: undefined, note: /get HTTP 413 \(text\/html\) from a front server/ },
    },
    {
      // The shape of a similarity error is not documented, but it is JSON.
      given: { type: 'application/json', body: 'request too large', status: 400 },
      want: { from: 'target', problem: /the 400 is not the interface's error: the body is not JSON/, note: undefined },
    },
  ];
  for (const { given, want } of cases) {
    test(`${given.status} ${given.type}: ${want.problem ? 'a problem' : 'a note, not a problem'}`, async () => {
      const server = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          const over = Number(req.headers['content-length']) > 5000;
          res.writeHead(over ? given.status : 200, { 'content-type': over ? given.type : 'application/json' });
          res.end(over ? given.body : '0.5');
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const result = await probeBodyLimit({
          baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
          validate,
        });
        assert.equal(result.limitBytes, 5000);
        assert.equal(result.overStatus, given.status);
        assert.equal(result.overFrom, want.from);
        if (want.note) assert.match(result.notes.join('\n'), want.note);
        else assert.deepEqual(result.notes, []);
        const others = result.problems.filter((problem) => !/neither 1,000,000 nor 1,048,576/.test(problem));
        if (want.problem) assert.match(others.join('\n'), want.problem);
        else assert.deepEqual(others, []);
      } finally {
        server.close();
      }
    });
  }
});

describe('body-limit probe helpers', () => {
  test('bodies have the exact size asked for and stay valid form bodies', () => {
    for (const size of [13, 64, 1000, 1_048_576, 1_048_577]) {
      const body = bodyOfSize(size);
      assert.equal(Buffer.byteLength(body), size);
      assert.match(body, /^s1=[a-z+]+&s2=house$/);
    }
  });

  const outcomes = [
    { given: { kind: 'status', status: 200 } as const, want: true },
    { given: { kind: 'status', status: 408 } as const, want: true },
    { given: { kind: 'status', status: 400 } as const, want: false },
    { given: { kind: 'status', status: 413 } as const, want: false },
    { given: { kind: 'reset', detail: 'ECONNRESET' } as const, want: false },
  ];
  for (const { given, want } of outcomes) {
    test(`outcome ${JSON.stringify(given)} counts as ${want ? 'accepted' : 'rejected'}`, () => {
      assert.equal(accepted(given), want);
    });
  }

  const refusals = [
    { given: { status: 400, contentType: 'application/json; charset=utf-8' }, want: 'target' },
    { given: { status: 413, contentType: 'application/json' }, want: 'target' },
    { given: { status: 413, contentType: 'text/html' }, want: 'front server' },
    { given: { status: 400, contentType: 'text/html; charset=utf-8' }, want: 'front server' },
    { given: { status: 413, contentType: undefined }, want: 'front server' },
    { given: { status: 502, contentType: 'text/html' }, want: 'target' },
  ];
  for (const { given, want } of refusals) {
    test(`a ${given.status} ${given.contentType ?? 'without a type'} is answered by ${want === 'target' ? 'the target' : 'a front server'}`, () => {
      assert.equal(answeredBy(given), want);
    });
  }
});
