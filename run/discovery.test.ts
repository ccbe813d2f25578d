import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { Api } from '../contracts/api.ts';
import { DataUnavailable } from '../contracts/test-data.ts';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import { DISCOVERY_SOURCES, Discovery, type DiscoveryItem } from './discovery.ts';

let reference: ReferenceServer;
let fake: Server;
let fakeUrl: string;

before(async () => {
  reference = await startReferenceServer({ quiet: true });
  // A target whose evaluate answers in the wrong shape but with data, and whose events are empty.
  fake = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    res.setHeader('content-type', 'application/json; charset=utf-8');
    if (path.endsWith('/evaluate'))
      return res.end(
        JSON.stringify({
          expr: 'Y>1900',
          entities: [
            { prob: 'high', Ti: 'first title', AA: [{ AuN: 'ada lovelace' }] },
            { prob: 'low', Ti: 'second title', AA: [{ AuN: 'ada lovelace' }] },
          ],
        }),
      );
    if (path.endsWith('/hotevents')) return res.end(JSON.stringify({ value: [] }));
    if (path.endsWith('/interpret')) return res.end('not json');
    res.statusCode = 404;
    res.end('{}');
  });
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
});
after(async () => {
  await reference.close();
  fake.closeAllConnections();
  fake.close();
});

function discoveryOf(baseUrl: string, key?: string): { discovery: Discovery; api: Api } {
  const api = new Api({
    baseUrl,
    keys: { full: key },
    timeoutMs: 5_000,
    maxBytes: 8 * 1024 * 1024,
    disabledChecks: new Set(),
    judge: false,
  });
  return { discovery: new Discovery(api), api };
}

test('every discovery item reads exactly the operations DISCOVERY_SOURCES declares', async () => {
  for (const item of Object.keys(DISCOVERY_SOURCES) as DiscoveryItem[]) {
    const { discovery, api } = discoveryOf(reference.url, reference.keys.full);
    await (discovery[item] as () => Promise<unknown>).call(discovery);
    assert.deepEqual([...api.reads].sort(), [...DISCOVERY_SOURCES[item]].sort(), `${item} reads what it declares`);
  }
});

test('a test view adds the sources of every item it uses to the test reads', async () => {
  const { discovery } = discoveryOf(reference.url, reference.keys.full);
  const reads = new Set<string>();
  await discovery.forTest(reads).titles();
  assert.deepEqual([...reads], ['evaluateGet'], 'titles come from evaluate');
});

test('discovery takes data from an answer that breaks the schema, and names the cause when there is none', async () => {
  const { discovery } = discoveryOf(fakeUrl, 'k');
  assert.deepEqual(
    await discovery.titles(),
    ['first title', 'second title'],
    'prob as a string does not hide the titles',
  );
  assert.deepEqual(await discovery.authors(), ['ada lovelace']);
  await assert.rejects(
    discovery.hotDate(),
    (error: unknown) =>
      error instanceof DataUnavailable &&
      /no trending events .*GET \/eventknowledge\/v1.0\/hotevents answered status 200/.test(error.message),
    'no events: the root cause names the operation and its answer',
  );
  await assert.rejects(
    discovery.interpretQuery(),
    (error: unknown) =>
      error instanceof DataUnavailable &&
      /GET \/academic\/v1.0\/interpret did not answer usably/.test(error.message) &&
      error.findings.some((finding) => finding.check === 'body-is-json'),
    'an unusable answer carries its finding, so it is reported on its operation',
  );
});

test('the search for values sends the search for papers with it: a slow evaluate costs the two one wait', async () => {
  // Evaluate holds every answer until it has two requests waiting (or 3 s have passed).
  const waiting: (() => void)[] = [];
  const counts: string[] = [];
  let bothWaited = false;
  const slow = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    counts.push(url.searchParams.get('count') ?? '');
    const answer = () => {
      res.setHeader('content-type', 'application/json; charset=utf-8');
      res.end(JSON.stringify({ expr: 'Y>1900', entities: [{ logprob: -1, prob: 0.5, Id: 1, Ti: 't', Y: 2000 }] }));
    };
    const answerAll = () => {
      for (const send of waiting.splice(0)) send();
    };
    waiting.push(answer);
    if (waiting.length === 2) {
      bothWaited = true;
      answerAll();
    } else setTimeout(answerAll, 3_000);
  });
  await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
  try {
    const { discovery } = discoveryOf(`http://127.0.0.1:${(slow.address() as AddressInfo).port}`, 'k');
    assert.equal((await discovery.paperValues()).length, 1);
    assert.ok(bothWaited, `both searches were waiting at once (sent: count=${counts.join(', count=')})`);
    assert.deepEqual(counts.sort(), ['40', '50'], 'papers (40) and the values (50), one request each');
    assert.equal((await discovery.papers()).length, 1, 'papers are not asked for again');
    assert.equal(counts.length, 2);
  } finally {
    slow.closeAllConnections();
    slow.close();
  }
});
