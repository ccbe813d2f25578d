import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, test } from 'node:test';
import { PACE_FILE, RunPace, SharedPace } from '../http/pacing.ts';
import { preflight } from './preflight.ts';

// The preflight against servers of its own: it ends once one answer rules out every problem it
// names, stopping the questions still open, and still names a problem that every answer shows.

const JSON_TYPE = 'application/json; charset=utf-8';
let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function answer(res: ServerResponse, status: number, body: string, type = JSON_TYPE): void {
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

test('one API answering slowly does not hold back the preflight: it ends on the first answer that rules out every problem, and lets the slow question finish unwaited for', async () => {
  const events: string[] = [];
  const url = await serve((req, res) => {
    if (req.url?.startsWith('/academic/')) {
      events.push('slow asked');
      res.on('close', () => events.push(res.writableFinished ? 'slow answered' : 'slow stopped'));
      setTimeout(() => answer(res, 200, '{"expr":"Y>1900","entities":[]}'), 600);
      return;
    }
    answer(res, 200, '{"_type":"SearchResponse","queryContext":{"originalQuery":"kgate"}}');
  });
  const problem = await preflight(url, 'k');
  events.push('preflight ended');
  assert.equal(problem, undefined);
  await new Promise((resolve) => setTimeout(resolve, 900));
  assert.deepEqual(events, ['slow asked', 'preflight ended', 'slow answered']);
});

test('an answer that rules out only some problems does not end the preflight early', async () => {
  // Every API refuses the key; the slowest refusal still counts, so the key is named.
  const url = await serve((req, res) => {
    const refuse = () => answer(res, 401, '{"error":{"statusCode":401,"message":"Access denied"}}');
    if (req.url?.startsWith('/academic/')) setTimeout(refuse, 300);
    else refuse();
  });
  const problem = await preflight(url, 'k');
  assert.equal(problem?.kind, 'key', JSON.stringify(problem));
});

test('a front server refusing every API in HTML is named, however slowly its last refusal comes', async () => {
  const url = await serve((req, res) => {
    const refuse = () => answer(res, 403, '<html><title>403 Forbidden</title></html>', 'text/html');
    if (req.url?.startsWith('/eventknowledge/')) setTimeout(refuse, 300);
    else refuse();
  });
  const problem = await preflight(url, 'k');
  assert.equal(problem?.kind, 'front', JSON.stringify(problem));
  assert.match(problem!.reason, /every API answered 403 text\/html \("403 Forbidden"\)/);
});

test('a JSON 401 to one API and an HTML error to the others is no problem the preflight names', async () => {
  const url = await serve((req, res) => {
    if (req.url?.startsWith('/academic/')) answer(res, 401, '{"error":{"statusCode":401,"message":"Access denied"}}');
    else setTimeout(() => answer(res, 502, '<html><title>Bad Gateway</title></html>', 'text/html'), 100);
  });
  assert.equal(await preflight(url, 'k'), undefined);
});

test("paced, the questions a first answer made needless claim none of the run's slots", async () => {
  let asked = 0;
  const url = await serve((_req, res) => {
    asked++;
    answer(res, 200, '{"expr":"Y>1900","entities":[]}');
  });
  const dir = mkdtempSync(join(tmpdir(), 'kgate-preflight-pace-'));
  try {
    // 5 requests a second: a slot every 200 ms.
    const pace = new RunPace(dir, 5);
    assert.equal(await preflight(url, 'k', pace), undefined);
    assert.equal(asked, 1, 'one question asked');
    // Past the three slots the needless questions would have claimed (200, 400 and 600 ms after the
    // first), the run's next request finds its slot free at once.
    await new Promise((resolve) => setTimeout(resolve, 700));
    const claim = new SharedPace(join(dir, PACE_FILE), 5).claim();
    assert.ok(claim.at !== undefined, `a slot is free (else it comes in ${claim.retryInMs} ms)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a base URL whose prefix routes nothing is named, whatever the 404s and catch-all pages say', async () => {
  const cases: { given: string; handler: (req: IncomingMessage, res: ServerResponse) => void }[] = [
    {
      given: "a gateway's JSON 404 on every path",
      handler: (_req, res) => answer(res, 404, '{"statusCode":404,"message":"Resource not found"}'),
    },
    {
      given: 'a catch-all page answering 200 to everything',
      handler: (_req, res) => answer(res, 200, '<html><title>My App</title></html>', 'text/html'),
    },
    {
      given: 'a catch-all answering 200 JSON of its own to everything',
      handler: (_req, res) => answer(res, 200, '{"status":"ok","version":"1.2"}'),
    },
    {
      given: "nginx's 404 page on every path",
      handler: (_req, res) => answer(res, 404, '<html><title>404 Not Found</title></html>', 'text/html'),
    },
  ];
  for (const { given, handler } of cases) {
    const url = await serve(handler);
    const problem = await preflight(url, 'k');
    assert.equal(problem?.kind, 'routing', `${given}: ${JSON.stringify(problem)}`);
    assert.match(problem!.reason, /no path of the interface is routed there \(every API answered /, given);
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
  }
});

test("one API routed is enough: a deployment that serves some APIs, or answers with a broken shape, is the run's to judge", async () => {
  const cases: { given: string; handler: (req: IncomingMessage, res: ServerResponse) => void }[] = [
    {
      given: 'event knowledge only, the rest 404',
      handler: (req, res) =>
        req.url?.startsWith('/eventknowledge/')
          ? answer(res, 200, '{"value":[]}')
          : answer(res, 404, '{"statusCode":404,"message":"Resource not found"}'),
    },
    {
      given: "event knowledge's own 404 for the date, the rest answered",
      handler: (req, res) =>
        req.url?.startsWith('/eventknowledge/')
          ? answer(res, 404, '{"statusCode":404,"message":"Resource not found"}')
          : answer(res, 200, '{"expr":"Y>1900","entities":[],"_type":"SearchResponse","name":"x"}'),
    },
    {
      given: 'every answer in a shape of its own but JSON errors of the deployment',
      handler: (_req, res) => answer(res, 500, '{"error":{"code":"Unspecified","message":"boom"}}'),
    },
    {
      given: 'a 200 with the wrong content type but the fields of the answer',
      handler: (_req, res) => answer(res, 200, '{"expr":"Y>1900","entities":[],"value":[]}', 'text/plain'),
    },
  ];
  for (const { given, handler } of cases) {
    const url = await serve(handler);
    assert.equal(await preflight(url, 'k'), undefined, given);
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
  }
});

test('a key whose call volume quota is used up is named, with the time the gateway states', async () => {
  const url = await serve((_req, res) =>
    answer(
      res,
      403,
      '{"statusCode":403,"message":"Out of call volume quota. Quota will be replenished in 2.03:23:11."}',
    ),
  );
  const problem = await preflight(url, 'k');
  assert.equal(problem?.kind, 'quota', JSON.stringify(problem));
  assert.match(problem!.reason, /call volume quota is used up \(replenished in 2\.03:23:11\)/);
});

test('under a request budget the questions go one at a time: one answer that rules out every problem is the only request counted', async () => {
  let asked = 0;
  const url = await serve((_req, res) => {
    asked++;
    answer(res, 200, '{"_type":"SearchResponse","expr":"Y>1900","entities":[],"value":[]}');
  });
  const dir = mkdtempSync(join(tmpdir(), 'kgate-preflight-budget-'));
  try {
    const pace = new RunPace(dir, undefined, {}, 60);
    assert.equal(await preflight(url, 'k', pace), undefined);
    assert.equal(asked, 1, 'one question asked');
    assert.equal(pace.cap?.used(), 1, 'one request of the budget claimed');
    // A first answer that settles nothing (every API refusing the key) lets the next question go.
    let refused = 0;
    server?.removeAllListeners('request');
    server?.on('request', (_req, res) => {
      refused++;
      answer(res, 401, '{"error":{"statusCode":401,"message":"Access denied"}}');
    });
    const again = new RunPace(join(dir, 'again'), undefined, {}, 60);
    assert.equal((await preflight(url, 'k', again))?.kind, 'key');
    assert.equal(refused, 4, 'every question asked, one after another');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
