import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Api, type ApiSettings, isJsonMediaType, retryWaitMs, TargetBroken } from './api.ts';
import { op } from './discovery.ts';
import { CheckFailure } from './failure.ts';

const PREVIEW = {
  _type: 'WebPage',
  name: 'n',
  url: 'https://example.org/',
  description: 'd',
  primaryImageOfPage: { contentUrl: 'https://example.org/i.png' },
};
let limitedOnce = false;
let server: Server;
let base: string;
const breakerDir = mkdtempSync(join(tmpdir(), 'kgate-api-'));

before(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const json = (
      status: number,
      body: unknown,
      type = 'application/json; charset=utf-8',
      headers: Record<string, string> = {},
    ) => {
      res.writeHead(status, { 'content-type': type, ...headers });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    if (path.startsWith('/html')) return json(200, PREVIEW, 'text/html');
    if (path.startsWith('/broken')) return json(200, '{"_type": "WebPa');
    if (path.startsWith('/drop')) return json(200, { ...PREVIEW, url: undefined, primaryImageOfPage: undefined });
    if (path.startsWith('/extra')) return json(200, { ...PREVIEW, undocumentedField: 1 });
    if (path.startsWith('/teapot')) return json(418, { message: 'no' });
    if (path.startsWith('/limited') && !limitedOnce) {
      limitedOnce = true;
      return json(
        429,
        { error: { statusCode: 429, message: 'Rate limit is exceeded. Try again in 1 seconds.' } },
        undefined,
        { 'retry-after': '0' },
      );
    }
    if (path.startsWith('/hang')) return;
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

function api(prefix: string, extra: Partial<ApiSettings> = {}): Api {
  return new Api({
    baseUrl: `${base}${prefix}`,
    keys: { full: 'test-key-0001' },
    timeoutMs: 300,
    maxBytes: 100_000,
    disabledChecks: new Set(),
    ...extra,
  });
}

test('the request fixture names what is wrong with a response', async () => {
  const cases = [
    { given: { prefix: '/html', intent: 'ok' as const }, want: 'content-type-is-json' },
    { given: { prefix: '/broken', intent: 'ok' as const }, want: 'body-is-json' },
    { given: { prefix: '/drop', intent: 'ok' as const }, want: 'response-matches-spec' },
    { given: { prefix: '/teapot', intent: 'ok' as const }, want: 'response-matches-spec' },
    { given: { prefix: '/hang', intent: 'ok' as const }, want: 'responds-within-timeout' },
  ];
  for (const { given, want } of cases) {
    await assert.rejects(
      api(given.prefix).call(op('urlPreview'), { params: { q: 'https://example.org/' }, intent: given.intent }),
      (error: unknown) =>
        error instanceof CheckFailure && error.failure.check === want && !error.message.includes('test-key-0001'),
      `${given.prefix} should fail ${want}`,
    );
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

test('after repeated timeouts the target is given up on, and tests are skipped instead of waiting', async () => {
  const client = api('/hang', { breakerDir });
  for (const operationId of ['hotEvents', 'answerSearch', 'urlPreview']) {
    await assert.rejects(
      client.call(op(operationId), { params: { q: 'https://example.org/', mkt: 'en-US', date: '2024-01-01' } }),
      CheckFailure,
    );
  }
  const started = performance.now();
  await assert.rejects(client.call(op('relatedEvents'), { params: { wikipediaid: 'X' } }), TargetBroken);
  assert.ok(performance.now() - started < 100);
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

test('retryWaitMs prefers Retry-After, then the seconds in the message, and caps the wait', () => {
  const cases: { given: { headers: Record<string, string>; text: string }; want: number }[] = [
    { given: { headers: { 'retry-after': '2' }, text: '' }, want: 2_000 },
    { given: { headers: {}, text: 'Try again in 3 seconds.' }, want: 3_000 },
    { given: { headers: {}, text: 'slow down' }, want: 1_000 },
    { given: { headers: { 'retry-after': '600' }, text: '' }, want: 5_000 },
    { given: { headers: { 'retry-after': '0' }, text: '' }, want: 200 },
  ];
  for (const { given, want } of cases) assert.equal(retryWaitMs(given), want);
});
