import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { command } from '../cli/commands/drift.ts';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import { analyzeHar, HarFormatError, type HarResult } from './har.ts';

let server: ReferenceServer;
let dir: string;

interface Recorded {
  request: { method: string; url: string; headers: Array<{ name: string; value: string }>; postData?: unknown };
  response: {
    status: number;
    headers: Array<{ name: string; value: string }>;
    content: { size: number; mimeType: string; text?: string; encoding?: string };
  };
}

/** Sends a real request to the reference server and records it as a HAR entry. */
async function record(path: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Recorded> {
  const url = `${server.url}${path}`;
  const headers: Record<string, string> = { 'Ocp-Apim-Subscription-Key': server.keys.full };
  const body = init.form ? new URLSearchParams(init.form).toString() : undefined;
  if (body) headers['Content-Type'] = 'application/x-www-form-urlencoded';
  const response = await fetch(url, { method: init.method ?? 'GET', headers, body });
  const text = await response.text();
  return {
    request: {
      method: init.method ?? 'GET',
      url,
      headers: Object.entries(headers).map(([name, value]) => ({ name, value })),
      ...(body ? { postData: { mimeType: headers['Content-Type'], text: body } } : {}),
    },
    response: {
      status: response.status,
      headers: [...response.headers].map(([name, value]) => ({ name, value })),
      content: { size: text.length, mimeType: response.headers.get('content-type') ?? '', text },
    },
  };
}

const har = (entries: Recorded[]) => ({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries } });

/** Rewrites a recorded body through a JSON edit, as a drifting or broken target would have sent it. */
function edit(entry: Recorded, change: (body: Record<string, unknown>) => void): Recorded {
  const body = JSON.parse(entry.response.content.text ?? 'null');
  change(body);
  const text = JSON.stringify(body);
  return { ...entry, response: { ...entry.response, content: { ...entry.response.content, text, size: text.length } } };
}

let result: HarResult;
let harFile: string;

describe('drift har: recorded traffic against the spec', () => {
  before(async () => {
    server = await startReferenceServer({ quiet: true, papers: 2000 });
    dir = mkdtempSync(join(tmpdir(), 'kgate-har-'));
    const search = await record('/answersearch/v7.0/search?q=knowledge%20graph&mkt=en-US&count=3');
    const events = await record('/eventknowledge/v1.0/hotevents?date=2026-11-01&$top=2');
    const base64 = {
      ...events,
      response: {
        ...events.response,
        content: {
          ...events.response.content,
          text: Buffer.from(events.response.content.text ?? '').toString('base64'),
          encoding: 'base64',
        },
      },
    };
    const prefixed = await record('/eventknowledge/v1.0/relatedevents?wikipediaid=Barack_Obama');
    prefixed.request.url = prefixed.request.url.replace('/eventknowledge', '/gateway/v2/eventknowledge');
    const invalidUrl = await record('/urlpreview/v7.0/search?q=not%20a%20url');
    const similarity = await record('/academic/v1.0/similarity', {
      method: 'POST',
      form: { s1: 'graph', s2: 'graphs' },
    });
    const retyped = edit(search, (body) => {
      (body.webPages as Record<string, unknown>).totalEstimatedMatches = 'many';
    });
    const drifted = edit(search, (body) => {
      body.news = { value: [] };
    });
    drifted.response = {
      ...drifted.response,
      headers: [...drifted.response.headers, { name: 'X-Powered-By', value: 'ASP.NET' }],
    };
    const truncated: Recorded = {
      ...search,
      response: { ...search.response, content: { ...search.response.content, text: '{"_type":"SearchResp' } },
    };
    const teapot: Recorded = { ...invalidUrl, response: { ...invalidUrl.response, status: 418 } };
    const unmatched: Recorded = { ...search, request: { ...search.request, url: `${server.url}/favicon.ico` } };
    const entries = [search, base64, prefixed, invalidUrl, similarity, retyped, drifted, truncated, teapot, unmatched];
    result = analyzeHar(har(entries), 'recorded.har');
    harFile = join(dir, 'recorded.har');
    writeFileSync(harFile, JSON.stringify(har(entries)));
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const CASES: Array<{ given: string; index: number; want: { valid: boolean; operation?: string; error?: RegExp } }> = [
    { given: 'a real answer search 200', index: 0, want: { valid: true, operation: 'GET /answersearch/v7.0/search' } },
    {
      given: 'a base64-encoded body',
      index: 1,
      want: { valid: true, operation: 'GET /eventknowledge/v1.0/hotevents' },
    },
    {
      given: 'a path under a base-path prefix',
      index: 2,
      want: { valid: true, operation: 'GET /eventknowledge/v1.0/relatedevents' },
    },
    { given: 'a documented 400', index: 3, want: { valid: true, operation: 'GET /urlpreview/v7.0/search' } },
    {
      given: 'a form POST with a bare-number body',
      index: 4,
      want: { valid: true, operation: 'POST /academic/v1.0/similarity' },
    },
    { given: 'a retyped field', index: 5, want: { valid: false, error: /totalEstimatedMatches/ } },
    { given: 'an undocumented extra field (drift, still valid)', index: 6, want: { valid: true } },
    { given: 'a body that is not JSON', index: 7, want: { valid: false, error: /not JSON/ } },
    { given: 'an undocumented status', index: 8, want: { valid: false, error: /status 418 is not documented/ } },
    { given: 'a path no operation matches', index: 9, want: { valid: true } },
  ];
  for (const { given, index, want } of CASES) {
    test(`entry ${index}: ${given}`, () => {
      const exchange = result.exchanges[index]!;
      assert.equal(exchange.valid, want.valid, exchange.errors.join('; '));
      if (want.operation) assert.equal(exchange.operation, want.operation);
      if (want.error) assert.match(exchange.errors.join('; '), want.error);
    });
  }

  test('a request that breaks the spec is noted, not judged invalid', () => {
    const invalidUrl = result.exchanges[3]!;
    assert.equal(invalidUrl.valid, true);
    assert.match(invalidUrl.requestErrors?.join('; ') ?? '', /parameter 'q'/);
    assert.equal(result.exchanges[0]?.requestErrors, undefined, 'a good request has no notes');
    assert.equal(result.exchanges[4]?.requestErrors, undefined, 'form bodies are read from postData');
  });

  test('unmatched paths are counted, not judged', () => {
    assert.equal(result.exchanges[9]?.skipped, 'no operation matches this method and path');
    assert.deepEqual(result.summary, {
      entries: 10,
      matched: 9,
      unmatched: 1,
      invalid: 3,
      operationsTouched: 5,
      operationsUntouched: 8,
    });
  });

  test('drift in valid traffic is reported with its path', () => {
    const paths = result.findings.map((finding) => `${finding.kind} ${finding.normalizedPath}`);
    assert.ok(paths.includes('undocumented-property $.news'), paths.join('; '));
    assert.ok(
      paths.includes('undocumented-header header:x-powered-by'),
      `recorded headers are read: ${paths.join('; ')}`,
    );
  });

  test('coverage lists statuses seen, statuses never seen and untouched operations', () => {
    const search = result.coverage.find((item) => item.operationId === 'answerSearch')!;
    assert.deepEqual(search.statuses, { '200': 4 });
    assert.deepEqual(search.notSeen, ['400', '401', '403', '429']);
    const preview = result.coverage.find((item) => item.operationId === 'urlPreview')!;
    assert.deepEqual(preview.statuses, { '400': 1, '418': 1 });
    assert.ok(result.untouched.includes('GET /academic/v1.0/interpret'));
    assert.equal(result.untouched.includes('GET /eventknowledge/v1.0/relatedevents'), false);
  });

  test('a file without log.entries is rejected', () => {
    assert.throws(() => analyzeHar({ entries: [] }, 'x.har'), HarFormatError);
  });

  test('kgate drift har exits 1 on invalid exchanges and never prints the key', async () => {
    const printed: string[] = [];
    const original = console.log;
    console.log = (...parts: unknown[]) => printed.push(parts.join(' '));
    let code: number;
    try {
      code = await command.run(['har', harFile]);
      await command.run(['har', harFile, '--json']);
    } finally {
      console.log = original;
    }
    assert.equal(code, 1);
    const output = printed.join('\n');
    assert.match(output, /INVALID entry 5 GET \/answersearch\/v7\.0\/search/);
    assert.match(output, /never: 400, 401, 403, 429/);
    assert.equal(output.includes(server.keys.full), false, 'the key from the HAR headers is masked');
    assert.equal(JSON.parse(printed.at(-1)!).kind, 'drift-har');
  });
});
