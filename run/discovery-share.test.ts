import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Api } from '../contracts/api.ts';
import { DataUnavailable } from '../contracts/test-data.ts';
import { Discovery } from './discovery.ts';
import { newDiscoveryRun, SharedDiscovery } from './discovery-share.ts';

// A target that counts the requests of each path: evaluate answers papers (slowly, so that the
// workers of a run ask at the same time), hot events answer none.
const requests = new Map<string, number>();
let target: Server;
let url: string;
const runDir = mkdtempSync(join(tmpdir(), 'kgate-discovery-share-'));

before(async () => {
  target = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.set(path, (requests.get(path) ?? 0) + 1);
    res.setHeader('content-type', 'application/json; charset=utf-8');
    if (path.endsWith('/evaluate')) {
      const entities = ['a title', 'another title'].map((Ti) => ({ prob: 0.5, Ti, AA: [{ AuN: 'ada lovelace' }] }));
      setTimeout(() => res.end(JSON.stringify({ expr: 'Y>1900', entities })), 50);
      return;
    }
    if (path.endsWith('/hotevents')) return res.end(JSON.stringify({ value: [] }));
    res.statusCode = 404;
    res.end('{}');
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
});
after(() => {
  target.closeAllConnections();
  target.close();
  rmSync(runDir, { recursive: true, force: true });
});

/** A worker's discovery of the target, sharing the run `runId`'s store (none: alone). */
function worker(runId: string | undefined, timeoutMs = 5_000): Discovery {
  const api = new Api({
    baseUrl: url,
    keys: { full: 'k' },
    timeoutMs,
    maxBytes: 1 << 20,
    disabledChecks: new Set(),
    judge: false,
  });
  return new Discovery(api, runId ? SharedDiscovery.of(runDir, runId, `scope ${url}`) : undefined);
}

test('the workers of a run find an item once between them, and each takes what the finder found', async () => {
  requests.clear();
  const run = newDiscoveryRun(runDir);
  const [first, second, third] = [worker(run), worker(run), worker(run)];
  const titles = await Promise.all([first.titles(), second.titles(), third.titles()]);
  assert.deepEqual(titles, Array(3).fill(['a title', 'another title']));
  assert.deepEqual(await second.authors(), ['ada lovelace']);
  assert.equal(requests.get('/academic/v1.0/evaluate'), 1, 'one request for the whole run');

  // Without a shared store (a run with no run folder), every worker finds its own.
  requests.clear();
  await Promise.all([worker(undefined).titles(), worker(undefined).titles()]);
  assert.equal(requests.get('/academic/v1.0/evaluate'), 2);
});

test('an item the finder found none of is unavailable to every worker, with its reason', async () => {
  requests.clear();
  const run = newDiscoveryRun(runDir);
  const failures = await Promise.allSettled([worker(run).hotDate(), worker(run).hotDate()]);
  const reasons = failures.map((failure) => {
    assert.equal(failure.status, 'rejected');
    const error = (failure as PromiseRejectedResult).reason;
    assert.ok(error instanceof DataUnavailable, String(error));
    return error.message;
  });
  assert.equal(reasons[0], reasons[1]);
  assert.match(reasons[0]!, /hotevents answered status 200/);
  // Every date tried once, by one worker.
  assert.equal(requests.get('/eventknowledge/v1.0/hotevents'), 7);
});

test('a worker whose finder leaves nothing finds the item itself after waiting a few deadlines', async () => {
  requests.clear();
  const run = newDiscoveryRun(runDir);
  // A finder that claimed the item and stopped (its process ended) before writing it.
  assert.equal(SharedDiscovery.of(runDir, run, `scope ${url}`).claim('papers'), true);
  const started = Date.now();
  // A deadline of 1 s: the request the worker then sends itself is answered well within it on a
  // loaded machine.
  assert.deepEqual(await worker(run, 1_000).titles(), ['a title', 'another title']);
  const waited = Date.now() - started;
  assert.ok(waited >= 4_000, `waited ${waited} ms: four deadlines of 1 s`);
  assert.equal(requests.get('/academic/v1.0/evaluate'), 1);
});

test("a run's start removes the shared data of runs in its folder an hour old or more, not a recent one's", () => {
  const old = join(runDir, '.discovery-oldrun-0123456789ab');
  const recent = join(runDir, '.discovery-recentrun-0123456789ab');
  for (const dir of [old, recent]) mkdirSync(dir, { recursive: true });
  const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
  utimesSync(old, twoHoursAgo, twoHoursAgo);
  assert.match(newDiscoveryRun(runDir), /^[0-9a-f]{12}$/);
  assert.equal(existsSync(old), false);
  assert.equal(existsSync(recent), true);
});
