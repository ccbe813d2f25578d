import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { OPERATION_IDS, type OperationId } from '../../openapi/spec.ts';
import { type ReferenceServer, startReferenceServer } from '../../reference/index.ts';
import { type FuzzSettings, runFuzz } from '../../run/fuzz.ts';
import { roundLength } from './cases.ts';
import { pacer } from './engine.ts';
import { parseExpression } from './expression.ts';

let server: ReferenceServer;
let dir: string;

before(async () => {
  server = await startReferenceServer({ quiet: true, rateLimit: 1e9 });
  dir = mkdtempSync(join(tmpdir(), 'kgate-fuzz-'));
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The URL of a curl line (its last argument, single-quoted, with quotes written '\\''). */
function urlOfCurl(curl: string | undefined): string {
  return /'(http.+)'$/.exec(curl ?? '')![1]!.replace(/'\\''/g, "'");
}

let runs = 0;
function settings(overrides: Partial<FuzzSettings> = {}): FuzzSettings {
  return {
    baseUrl: server.url,
    key: server.keys.full,
    operations: OPERATION_IDS,
    maxRequests: 200,
    durationMs: 60_000,
    seed: 2026,
    timeoutMs: 5_000,
    maxBytes: 8 * 1024 * 1024,
    reportDir: join(dir, `run-${runs++}`),
    ...overrides,
  };
}

test('the reference server passes 2,000 generated requests over every operation with no finding', async () => {
  const result = await runFuzz(settings({ maxRequests: 2_000 }));
  assert.deepEqual(
    result.findings.map((finding) => `${finding.check} ${finding.operation}: ${finding.title} ${finding.curl}`),
    [],
    'no finding on the clean server',
  );
  assert.ok(result.cases.total >= 1_950, `about the budget was sent (${result.cases.total})`);
  assert.ok(result.cases.positive > 0 && result.cases.negative > 0 && result.cases.edge > 0, 'every intent');
  assert.ok(
    existsSync(join(result.reportDir, 'summary.md')) && existsSync(join(result.reportDir, 'summary.json')),
    'reports',
  );
});

test('a 500 only wide Or expressions trigger is found and shrunk to an Or of four arguments', async () => {
  const result = await runFuzz(
    settings({ baseUrl: `${server.url}/faults/evaluate-wide-or-500`, operations: ['evaluateGet'], maxRequests: 66 }),
  );
  const finding = result.findings.find((candidate) => candidate.check === 'no-server-error');
  assert.ok(finding, `no-server-error reported: ${result.findings.map((f) => f.title).join('; ')}`);
  const url = new URL(urlOfCurl(finding.curl));
  const expr = url.searchParams.get('expr') ?? '';
  const parsed = parseExpression(expr);
  assert.ok(parsed.ok && parsed.tree.kind === 'bool', `the shrunk expr is still valid: ${expr}`);
  assert.equal(parsed.tree.kind === 'bool' ? parsed.tree.args.length : 0, 4, `the smallest Or that fails: ${expr}`);
  assert.deepEqual([...url.searchParams.keys()], ['expr'], 'optional parameters were dropped');
  // The model's plan goes first: the finding names the planned request's items, or a drawn case's number.
  assert.match(finding.seed ?? '', /^2026, evaluateGet (case \d+ \(|\S+ \().*shrunk in \d+ step/, 'the seed line');
});

test('a 500 only one class of the world triggers is shrunk to the part that carries it', async () => {
  const result = await runFuzz(
    settings({
      baseUrl: `${server.url}/faults/interpret-combining-mark-500`,
      operations: ['interpretGet'],
      maxRequests: roundLength('interpretGet'),
    }),
  );
  const finding = result.findings.find((candidate) => candidate.check === 'no-server-error');
  assert.ok(finding, `no-server-error reported: ${result.findings.map((f) => f.title).join('; ')}`);
  const query = new URL(urlOfCurl(finding.curl)).searchParams.get('query') ?? '';
  assert.ok(/\p{M}/u.test(query), `the shrunk query keeps a combining mark: ${JSON.stringify(query)}`);
  // One part of the world value left: a single sample, not the sentence of every class.
  assert.ok(!/[\p{Script=Han}\p{Script=Arabic}\p{Script=Hebrew}]/u.test(query), `other classes dropped: ${query}`);
  assert.match(finding.seed ?? '', /query:world[ ;(].*shrunk in \d+ step/, 'shrunk from the world kind');
});

test('the same seed finds the same findings with the same requests', async () => {
  const run = () =>
    runFuzz(
      settings({
        baseUrl: `${server.url}/faults/hotevents-day-31-accepted`,
        operations: ['hotEvents'],
        maxRequests: 60,
      }),
    );
  const [first, second] = [await run(), await run()];
  const shown = (result: Awaited<ReturnType<typeof run>>) =>
    result.findings.map((finding) => [finding.check, finding.curl, finding.seed]);
  assert.ok(
    first.findings.some((finding) => finding.check === 'negative-input-rejected'),
    'the accepted date is found',
  );
  assert.deepEqual(shown(second), shown(first), 'same seed, same findings, same requests');
});

test('a hang is reported once under responds-within-timeout, not shrunk, and the operation is given up on', async () => {
  const result = await runFuzz(
    settings({
      baseUrl: `${server.url}/faults/hotevents-top-zero-hang`,
      operations: ['hotEvents' as OperationId],
      maxRequests: 120,
      // The hang costs this deadline; every other answer comes well within it on a loaded machine.
      timeoutMs: 2_000,
    }),
  );
  const timeouts = result.findings.filter((finding) => finding.check === 'responds-within-timeout');
  assert.equal(timeouts.length, 1, 'one finding');
  assert.match(timeouts[0]!.seed ?? '', /not shrunk/, 'a hang is not shrunk');
  assert.ok(result.durationMs < 30_000, `bounded time (${result.durationMs} ms)`);
});

test('the pacer spaces requests to the rate asked for', async () => {
  const pace = pacer(50)!;
  const started = performance.now();
  for (let i = 0; i < 11; i++) await pace();
  const elapsed = performance.now() - started;
  assert.ok(elapsed >= 190, `10 intervals of 20 ms take at least 200 ms (took ${elapsed.toFixed(0)})`);
  assert.equal(pacer(undefined), undefined, 'no rate, no pacing');
});

test('a finding reproduces from its seed line and from its curl line', async () => {
  const base = `${server.url}/faults/answersearch-fractional-count-accepted`;
  // A whole round: every kind of case of every operation once.
  const first = await runFuzz(settings({ baseUrl: base, maxRequests: 480 }));
  const finding = first.findings.find((candidate) => candidate.check === 'negative-input-rejected');
  assert.ok(finding?.seed, `the accepted count is found: ${first.findings.map((f) => f.title).join('; ')}`);
  // A planned request's seed line names its items, a drawn case's its number of the operation's draw;
  // either names the target.
  const items = /kgate fuzz --base-url (\S+) --seed (\d+) --items (\S+)$/.exec(finding.seed);
  const drawn = /kgate fuzz --base-url (\S+) --seed (\d+) --cases (\w+):(\d+)$/.exec(finding.seed);
  assert.ok(items || drawn, finding.seed);
  assert.equal((items ?? drawn)![1], base, 'the seed line names the target');
  const again = await runFuzz(
    items
      ? settings({
          baseUrl: base,
          seed: Number(items[2]),
          items: items[3]!.replace(/^'|'$/g, '').split(','),
          maxRequests: 60,
        })
      : settings({
          baseUrl: base,
          seed: Number(drawn![2]),
          operations: [drawn![3] as OperationId],
          cases: [{ operationId: drawn![3] as OperationId, index: Number(drawn![4]) }],
        }),
  );
  assert.ok(
    again.findings.some((candidate) => candidate.check === finding.check && candidate.title === finding.title),
    'the seed line finds it again',
  );
  const url = urlOfCurl(finding.curl);
  const response = await fetch(url, { headers: { 'Ocp-Apim-Subscription-Key': server.keys.full } });
  assert.equal(response.status, 200, `the curl line shows it: the invalid count is accepted (${url})`);
  assert.match(new URL(url).searchParams.get('count') ?? '', /^\d+\.\d+$/, 'a fractional count');
});

test('a property broken for some inputs is reported under its own check id, shrunk, with its seed and curl lines', async () => {
  const cases = [
    { fault: 'evaluate-orderby-cc-ignored', operation: 'evaluateGet', check: 'orderby-is-honoured', maxRequests: 67 },
    {
      fault: 'similarity-post-long-differs',
      operation: 'similarityPost',
      check: 'get-and-post-agree',
      maxRequests: 18,
    },
    {
      fault: 'hotevents-top-document-foreign',
      operation: 'hotEvents',
      check: 'event-documents-agree',
      maxRequests: 28,
    },
  ];
  for (const { fault, operation, check, maxRequests } of cases) {
    const result = await runFuzz(
      settings({
        baseUrl: `${server.url}/faults/${fault}`,
        operations: [operation as OperationId],
        maxRequests,
        seed: 1,
      }),
    );
    const finding = result.findings.find((candidate) => candidate.check === check);
    assert.ok(finding, `${fault}: ${check} reported (found: ${result.findings.map((f) => f.check).join(', ')})`);
    assert.ok(
      !result.findings.some((candidate) => candidate.check === 'positive-input-accepted'),
      `${fault}: a 200 that breaks a property is not a rejected valid request`,
    );
    assert.match(
      finding.seed ?? '',
      new RegExp(
        `^1, ${operation} (case \\d+ |\\S+ \\().*kgate fuzz --base-url ${server.url}/faults/${fault} --seed 1 --(cases ${operation}:\\d+|items \\S+)$`,
      ),
      `${fault}: seed line`,
    );
    assert.match(finding.curl ?? '', /Ocp-Apim-Subscription-Key: \*\*\*/i, `${fault}: curl line, key masked`);
    assert.ok(!JSON.stringify(finding).includes(server.keys.full), `${fault}: no key anywhere in the finding`);
  }
});

test('the timestamps a relation reads are judged on the operation that answered them', async () => {
  // Hot events only: their event-documents relation reads the documents of other events than the
  // hottest, whose publishDate this fault writes with a +02:00 offset.
  const result = await runFuzz(
    settings({
      baseUrl: `${server.url}/faults/eventdocuments-local-time-off-hottest`,
      operations: ['hotEvents'],
      maxRequests: 100,
    }),
  );
  const stamps = result.findings.filter((finding) => finding.title === 'timestamp not in UTC');
  assert.ok(stamps.length > 0, JSON.stringify(result.findings.map((finding) => finding.title)));
  for (const finding of stamps) {
    assert.equal(finding.check, 'response-matches-spec');
    assert.equal(finding.operation, 'GET /eventknowledge/v1.0/events/{event_id}/documents');
    assert.match(finding.received, /\+02:00/);
  }
});
