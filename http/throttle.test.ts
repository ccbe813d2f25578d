import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  AdaptivePace,
  acceptedRate,
  describeSignal,
  FIRST_INTERVAL_MS,
  retryAfterOf,
  SLOWEST_INTERVAL_MS,
  signalledBy,
  statedWaitMs,
  throttleSignal,
  throttleStates,
} from './throttle.ts';

const NGINX_503 =
  '<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>\r\n<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n<hr><center>nginx/1.22.1</center>\r\n</body>\r\n</html>\r\n';

test('retryAfterOf reads delay-seconds and HTTP-dates, and says when there is none', () => {
  const now = Date.parse('2026-11-28T12:00:00Z');
  const cases = [
    { given: undefined, want: { form: 'absent' } },
    { given: '', want: { form: 'absent' } },
    { given: '3', want: { form: 'seconds', seconds: 3 } },
    { given: ' 120 ', want: { form: 'seconds', seconds: 120 } },
    { given: 'Sat, 28 Nov 2026 12:00:05 GMT', want: { form: 'http-date', seconds: 5 } },
    { given: 'Sat, 28 Nov 2026 11:59:00 GMT', want: { form: 'http-date', seconds: 0 } },
    { given: 'soon', want: { form: 'invalid' } },
    { given: '1.5', want: { form: 'invalid' } },
  ];
  for (const { given, want } of cases) assert.deepEqual(retryAfterOf(given, now), want, String(given));
});

test('throttleSignal: a 429 or 503 with any body is throttling; only the 429 JSON error stating the seconds conforms', () => {
  const cases: {
    given: { status: number; headers: Record<string, string>; body: string };
    want: { conforms: boolean; text: string; by: string };
  }[] = [
    {
      given: { status: 503, headers: { 'content-type': 'text/html', server: 'nginx/1.22.1' }, body: NGINX_503 },
      want: { conforms: false, text: '503 text/html without Retry-After', by: 'a front server (Server: nginx/1.22.1)' },
    },
    {
      given: { status: 429, headers: { 'content-type': 'text/html' }, body: NGINX_503.replace(/503/g, '429') },
      want: { conforms: false, text: '429 text/html without Retry-After', by: 'a front server' },
    },
    {
      given: {
        status: 429,
        headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': '1' },
        body: '{"error":{"statusCode":429,"message":"Rate limit is exceeded. Try again in 1 seconds."}}',
      },
      want: { conforms: true, text: '429 application/json with Retry-After in seconds', by: 'the interface' },
    },
    {
      // A gateway's own JSON: throttling, not the interface's shape.
      given: {
        status: 429,
        headers: { 'content-type': 'application/json', 'retry-after': 'Sat, 28 Nov 2026 12:00:05 GMT' },
        body: '{"statusCode":429,"message":"Rate limit is exceeded. Try again in 5 seconds."}',
      },
      want: {
        conforms: false,
        text: '429 application/json with Retry-After as an HTTP-date',
        by: 'the interface or a gateway in front of it',
      },
    },
    {
      given: { status: 503, headers: { 'content-type': 'text/plain', via: '1.1 haproxy' }, body: 'busy' },
      want: { conforms: false, text: '503 text/plain without Retry-After', by: 'a front server (Via: 1.1 haproxy)' },
    },
    {
      given: { status: 503, headers: {}, body: '' },
      want: { conforms: false, text: '503 no content type without Retry-After', by: 'a front server' },
    },
  ];
  for (const { given, want } of cases) {
    const signal = throttleSignal(given)!;
    assert.ok(signal, JSON.stringify(given));
    assert.equal(signal.conforms, want.conforms, want.text);
    assert.equal(describeSignal(signal), want.text);
    assert.equal(signalledBy(signal), want.by);
  }
  for (const status of [200, 400, 401, 403, 404, 500, 502])
    assert.equal(throttleSignal({ status, headers: {}, body: '' }), undefined);
});

test('statedWaitMs takes Retry-After first, then the seconds of the message', () => {
  const cases = [
    { given: { retryAfter: { form: 'seconds' as const, seconds: 2 }, messageSeconds: 5 }, want: 2000 },
    { given: { retryAfter: { form: 'absent' as const }, messageSeconds: 5 }, want: 5000 },
    { given: { retryAfter: { form: 'absent' as const } }, want: undefined },
  ];
  for (const { given, want } of cases) assert.equal(statedWaitMs(given), want);
});

test('the adaptive pace starts at the first throttled answer, backs off, recovers, and is shared through files', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kgate-throttle-'));
  try {
    const a = new AdaptivePace(dir);
    const b = new AdaptivePace(dir);
    const signal = throttleSignal({ status: 503, headers: { 'content-type': 'text/html' }, body: NGINX_503 })!;
    // Never throttled: no wait, no state.
    assert.equal(await a.wait('t /p'), true);
    assert.equal(a.state('t /p'), undefined);
    a.accepted('t /p');
    assert.equal(a.state('t /p'), undefined, 'an answer of a path never throttled writes nothing');
    // Throttled: the interval doubles from FIRST_INTERVAL_MS up to SLOWEST_INTERVAL_MS, in every process.
    let state = a.throttled('t /p', signal, undefined, { path: '/p', acceptedBefore: 3 });
    assert.equal(state.intervalMs, FIRST_INTERVAL_MS);
    assert.equal(state.acceptedBefore, 3);
    // Answers throttled together (requests that were in flight at once) make it grow once.
    for (let i = 0; i < 10; i++) state = b.throttled('t /p', signal, undefined, { path: '/p' });
    assert.equal(state.intervalMs, FIRST_INTERVAL_MS);
    let grown = 0;
    while (state.intervalMs < SLOWEST_INTERVAL_MS && grown < 10) {
      await new Promise((resolve) => setTimeout(resolve, state.intervalMs + 5));
      state = b.throttled('t /p', signal, undefined, { path: '/p' });
      grown++;
    }
    assert.equal(state.intervalMs, SLOWEST_INTERVAL_MS);
    assert.equal(grown, 6, 'doubling from 100 ms: 200, 400, 800, 1600, 3200, then the slowest');
    assert.equal(a.state('t /p')!.throttled, 17);
    // A stated wait holds the next request back that long.
    const before = Date.now();
    b.throttled('t /q', signal, 300, { path: '/q' });
    assert.equal(await a.wait('t /q'), true);
    assert.ok(Date.now() - before >= 290, 'waited as the answer asked');
    // A wait past the deadline is not taken.
    b.throttled('t /r', signal, 5_000, { path: '/r' });
    assert.equal(await a.wait('t /r', Date.now() + 100), false);
    // Answers that get through shorten the interval until the path is unpaced again.
    for (let i = 0; i < 100; i++) a.accepted('t /p');
    assert.equal(a.state('t /p')!.intervalMs, 0);
    assert.equal(a.state('t /p')!.accepted, 100);
    // A path that proved persistent is not paced.
    b.throttled('t /s', signal, 5_000, { path: '/s' });
    b.mark('t /s', 'persistent');
    assert.equal(await a.wait('t /s', Date.now() + 100), true);
    assert.deepEqual(
      throttleStates(dir).map((item) => item.path),
      ['/p', '/q', '/r', '/s'],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('acceptedRate: answers that got through between the first and the last throttled one, over that time', () => {
  const base = {
    key: 'k',
    path: '/p',
    next: 0,
    intervalMs: 0,
    throttled: 9,
    acceptedBefore: 0,
    lastAcceptedAt: 0,
    widestMs: 0,
  };
  assert.equal(acceptedRate({ ...base, accepted: 20, firstAt: 0, lastAt: 4_000 }), 5);
  assert.equal(acceptedRate({ ...base, accepted: 20, firstAt: 0, lastAt: 500 }), undefined, 'under a second: no rate');
  assert.equal(acceptedRate({ ...base, accepted: 0, firstAt: 0, lastAt: 4_000 }), undefined);
});
