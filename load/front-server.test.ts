// kgate load and both probes through Debian's nginx, with the deployment at a path prefix
// (`location /api/` proxying to the reference server), as a team that runs the interface behind a
// front server would point kgate at it: every request must reach the deployment (nginx's access
// log shows each one under /api/, none answered 404 by the front), the probes must find the rate
// limit and the exact body limit, and just over the body limit the answer must be the interface's
// own 400, not the 502 nginx makes of a server that resets the upload it refuses.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PREFLIGHT_PATHS } from '../contracts/preflight.ts';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import { assertServed } from '../scripts/load-served.ts';
import { missingBinaries, type RealNginx, startNginx } from '../scripts/real-servers.ts';
import { runKgate } from '../scripts/run-process.ts';
import type { BodyLimitProbeResult } from './probes/body-limit.ts';
import type { RateLimitProbeResult } from './probes/rate-limit.ts';
import type { LoadSummary } from './report.ts';

const skip = missingBinaries(['nginx']);
/** No proxy of the machine running the tests leaks into a run. */
const NO_PROXY_ENV = Object.fromEntries(
  ['HTTPS_PROXY', 'HTTP_PROXY', 'ALL_PROXY', 'NO_PROXY'].flatMap((name) => [
    [name, ''],
    [name.toLowerCase(), ''],
  ]),
);
const PREFIX = '/api/';
/** The rate limit of the reference server behind nginx for the rate-limit probe (requests/s per key). */
const RATE_LIMIT = 50;

let dir: string;
const servers: ReferenceServer[] = [];
const fronts: RealNginx[] = [];

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'kgate-front-'));
});
after(async () => {
  await Promise.all(fronts.map((front) => front.stop()));
  await Promise.all(servers.map((server) => server.close()));
  rmSync(dir, { recursive: true, force: true });
});

/** A reference server behind nginx at /api/; nginx keeps its defaults except where `nginx` says. */
async function deployment(
  options: { rateLimit?: number; clientMaxBodySize?: string } = {},
): Promise<{ server: ReferenceServer; front: RealNginx }> {
  const server = await startReferenceServer({ quiet: true, papers: 2000, rateLimit: options.rateLimit });
  servers.push(server);
  const front = await startNginx({
    upstream: server.url,
    prefix: PREFIX,
    ...(options.clientMaxBodySize ? { clientMaxBodySize: options.clientMaxBodySize } : {}),
  });
  fronts.push(front);
  return { server, front };
}

/** nginx's access log as `{ status, path }`, from `<status> <bytes> "<method> <path> HTTP/1.1"`. */
function arrivals(front: RealNginx): { status: number; path: string }[] {
  return front.accessLog().map((line) => {
    const match = /^(\d{3}) \d+ "\S+ (\S+) HTTP\/1\.[01]"$/.exec(line);
    assert.ok(match, `an access log line: ${line}`);
    return { status: Number(match[1]), path: match[2]! };
  });
}

async function kgate(args: string[], server: ReferenceServer) {
  const run = await runKgate([...args, '--json'], {
    cwd: dir,
    env: { KGATE_BASE_URL: '', KGATE_KEY: server.keys.full, ...NO_PROXY_ENV },
    timeoutMs: 120_000,
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(run.stdout);
  } catch {
    assert.fail(`kgate ${args[0]} printed no JSON (exit ${run.code}): ${run.stderr.slice(-2000)}`);
  }
  return { ...run, parsed };
}

/** Whether a path (under the prefix) is one of the door's preflight questions. */
const isPreflight = (path: string) => PREFLIGHT_PATHS.some((question) => path === `${PREFIX}${question.slice(1)}`);

describe('through nginx at a path prefix', { skip, concurrency: false }, () => {
  test('kgate load: every request reaches the deployment under the prefix, none gets the front 404', async () => {
    const { server, front } = await deployment();
    // Half the requests are validated (the shared client), half are autocannon's.
    const { code, parsed, stderr } = await kgate(
      [
        'load',
        'smoke',
        '--base-url',
        front.url,
        '--max-rps',
        '10',
        '--duration',
        '4s',
        '--validate-share',
        '50',
        '--report-dir',
        join(dir, 'load'),
      ],
      server,
    );
    const summary = parsed as LoadSummary;
    const seen = arrivals(front);
    assertServed(code, summary, stderr);
    assert.ok(summary.result.sent >= 35, `${summary.result.sent} requests sent`);
    assert.ok(summary.result.validation.checked > 0, 'some requests went through the shared client');
    assert.ok(summary.result.validation.checked < summary.result.sent, 'some requests went through autocannon');
    assert.equal(summary.result.validation.invalid, 0);
    assert.deepEqual(
      seen.filter((arrival) => !arrival.path.startsWith(PREFIX) || arrival.status !== 200),
      [],
      'every request went under /api/ and was answered 200 by the deployment',
    );
    // The door's preflight (one question per API), the load's own hot-events request, then every request of the run.
    assert.equal(seen.length, PREFLIGHT_PATHS.length + 1 + summary.result.sent, 'nginx saw every request of the run');
  });

  test('kgate probe rate-limit finds the deployment limit through the front', async () => {
    const { server, front } = await deployment({ rateLimit: RATE_LIMIT });
    const { code, parsed, stderr } = await kgate(
      ['probe', 'rate-limit', '--operation', 'answerSearch', '--base-url', front.url],
      server,
    );
    const result = parsed as RateLimitProbeResult;
    assert.equal(code, 0, `exit code 0: ${stderr.slice(-2000)}`);
    assert.deepEqual(result.problems, []);
    assert.ok(
      // Within 10 % on a quiet machine (npm run bench -- probes); 20 % is a loaded machine's margin.
      result.thresholdRps !== null && Math.abs(result.thresholdRps - RATE_LIMIT) <= RATE_LIMIT * 0.2,
      `found ${result.thresholdRps}/s, limit ${RATE_LIMIT}/s`,
    );
    assert.equal(result.invalid429.count, 0, "every 429 is the interface's own");
    assert.equal(result.recovered, true);
    const seen = arrivals(front);
    assert.equal(
      seen.length,
      PREFLIGHT_PATHS.length + 1 + result.requests,
      "nginx saw the door's preflight, the route check and every request of the probe",
    );
    assert.deepEqual(
      seen.filter(
        (arrival) =>
          !isPreflight(arrival.path) &&
          (!arrival.path.startsWith(`${PREFIX}answersearch/`) || ![200, 429].includes(arrival.status)),
      ),
      [],
      'every request reached answer search under /api/ and got 200 or 429',
    );
  });

  test("kgate probe body-limit finds exactly 1,048,576 bytes and the interface's 400 one byte over, not nginx's 502", async () => {
    // A front that lets bodies up to 4 MiB through, so the limit found is the deployment's own.
    const { server, front } = await deployment({ clientMaxBodySize: '4m' });
    const { code, parsed, stderr } = await kgate(['probe', 'body-limit', '--base-url', front.url], server);
    const result = parsed as BodyLimitProbeResult;
    assert.equal(code, 0, `exit code 0: ${stderr.slice(-2000)}`);
    assert.equal(result.limitBytes, 1_048_576);
    assert.equal(result.overStatus, 400, result.overDetail);
    assert.equal(result.overFrom, 'target');
    assert.deepEqual(result.problems, [], "the 400 matches the spec: the interface's own error");
    assert.deepEqual(result.notes, []);
    assert.equal(result.healthyAfter, true);
    const seen = arrivals(front);
    assert.equal(
      seen.length,
      PREFLIGHT_PATHS.length + 1 + result.requests,
      "nginx saw the door's preflight, the route check and every request of the probe",
    );
    assert.ok(
      seen
        .filter((arrival) => !isPreflight(arrival.path))
        .every((arrival) => arrival.path.startsWith(`${PREFIX}academic/v1.0/similarity`)),
      'every request went to similarity under /api/',
    );
    assert.deepEqual(
      seen.filter((arrival) => ![200, 400].includes(arrival.status)),
      [],
      'nginx passed on 200 or the deployment 400: no 502',
    );
  });

  test("with nginx's default client_max_body_size the front's 413 is named as its limit, not a problem", async () => {
    const { server, front } = await deployment();
    const { code, parsed, stderr } = await kgate(['probe', 'body-limit', '--base-url', front.url], server);
    const result = parsed as BodyLimitProbeResult;
    assert.equal(code, 0, `exit code 0: ${stderr.slice(-2000)}`);
    assert.equal(result.limitBytes, 1_048_576, "nginx's 1m is 1 MiB");
    assert.equal(result.overStatus, 413);
    assert.equal(result.overFrom, 'front server');
    assert.match(result.notes.join('\n'), /HTTP 413 \(text\/html\) from a front server/);
    assert.deepEqual(result.problems, []);
  });
});
