// test-runner: long (a full conform run with the rate-limit tests, through a proxy that logs every answer)
// When the rate-limit tests burst: after every other test of the operations they burst (answer
// search and URL preview, the operations the interface rate-limits), so none of those meets a burst's
// 429s; beside the tests of the other operations, which the rate limit does not cover.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import { type ArrivalsProxy, startArrivalsProxy } from '../scripts/arrivals-proxy.ts';
import { referenceKeyEnv, runKgate } from '../scripts/run-process.ts';

/** Paths of the operations the interface rate-limits. */
const LIMITED = /^\/(answersearch|urlpreview)\//;

interface Exchange {
  at: number;
  url: string;
  status?: number;
}

let server: ReferenceServer;
let proxy: ArrivalsProxy;
let dir: string;
const log: Exchange[] = [];
before(async () => {
  server = await startReferenceServer({ quiet: true });
  const pending = new WeakMap<object, Exchange>();
  proxy = await startArrivalsProxy(
    server.url,
    (request) => {
      const exchange = { at: performance.now(), url: request.url ?? '' };
      pending.set(request, exchange);
      log.push(exchange);
    },
    (request, status) => {
      const exchange = pending.get(request);
      if (exchange) exchange.status = status;
    },
  );
  dir = mkdtempSync(join(tmpdir(), 'kgate-rate-limit-order-'));
});
after(async () => {
  proxy.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

test('the bursts come after the rate-limited operations’ other tests and beside the other operations’ tests', async () => {
  const run = await runKgate(
    [
      'conform',
      '--base-url',
      proxy.url,
      '--with-rate-limit',
      '--workers',
      '3',
      '--json',
      '--report-dir',
      join(dir, 'run'),
    ],
    { env: referenceKeyEnv(server.keys), timeoutMs: 120_000 },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.equal(JSON.parse(run.stdout).verdict, 'pass');

  const limited = log.filter((exchange) => LIMITED.test(exchange.url));
  const limitedAnswers = limited.filter((exchange) => exchange.status === 429);
  assert.ok(limitedAnswers.length >= 2, 'both bursts met the rate limit');
  // The burst repeats one valid request: the URLs answered 429 are the bursts' requests.
  const burstUrls = new Set(limitedAnswers.map((exchange) => exchange.url));
  const firstLimited429 = Math.min(...limitedAnswers.map((exchange) => exchange.at));
  const lastBurst = Math.max(
    ...limited.filter((exchange) => burstUrls.has(exchange.url)).map((exchange) => exchange.at),
  );
  const strays = limited.filter((exchange) => exchange.at > firstLimited429 && !burstUrls.has(exchange.url));
  assert.deepEqual(
    strays.map((exchange) => exchange.url),
    [],
    'no other request to a rate-limited operation once a burst met the limit',
  );
  // Every 429 was answered to a burst request, never to another test.
  assert.ok(limitedAnswers.every((exchange) => burstUrls.has(exchange.url)));
  assert.ok(
    log.every((exchange) => LIMITED.test(exchange.url) || exchange.status !== 429),
    'no request to another operation was answered 429',
  );

  // The other operations' tests ran while the bursts and their recovery waits did.
  const beside = log.filter(
    (exchange) => !LIMITED.test(exchange.url) && exchange.at > firstLimited429 && exchange.at < lastBurst,
  );
  assert.ok(
    beside.length > 0,
    'requests to other operations were sent between the first 429 and the last recovery request',
  );
});
