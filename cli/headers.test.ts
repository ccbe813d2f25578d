// test-runner: long (every command that talks to a target, through the CLI, against a front that records what arrives)
// What every request of every command carries (--header, the configuration file's headers read
// from the environment, the User-Agent, a base URL's credentials as Basic authorization), seen by a
// front server on 127.0.0.1 as it arrives; that none of those secrets reaches a file or the terminal;
// that a run folder holds reports only; and that a key or header value HTTP forbids is one line, exit 2.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { scanForSecrets } from '../proof/secret-scan.ts';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import { kgateVersion } from '../reporting/run-meta.ts';
import { type RecordingFront, type SeenRequest, startRecordingFront } from '../scripts/recording-front.ts';
import { filesBelow, scratchLeft } from '../scripts/run-folder-left.ts';
import { NO_PROXY_ENV, type ProcessResult, runKgate } from '../scripts/run-process.ts';

const USER = 'kgate-user';
const PASSWORD = 'Pw-7c1e9a44d2-secret';
const TOKEN = 'tok-5b8e2f90c1a7-secret';
const TRACE = 'trace-3e61f0aa77-secret';
const BASIC = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;

let server: ReferenceServer;
let front: RecordingFront;
let work: string;
let withCredentials: string;
const outputs: { command: string; result: ProcessResult }[] = [];

before(async () => {
  server = await startReferenceServer({ quiet: true });
  front = await startRecordingFront(server.url);
  withCredentials = front.url.replace('http://', `http://${USER}:${PASSWORD}@`);
  work = mkdtempSync(join(tmpdir(), 'kgate-headers-'));
  // The configuration file every command reads from its working directory: a secret from the
  // environment, and a header known to carry none.
  writeFileSync(
    join(work, 'kgate.config.json'),
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the file's own ${NAME} syntax, read by kgate, not by JavaScript.
    JSON.stringify({ headers: { 'X-Api-Token': 'Bearer ${KGATE_TEST_TOKEN}', 'X-Request-Id': 'kgate-headers-test' } }),
  );
});
after(async () => {
  await front?.close();
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

/** Runs a command from the working folder with the key, the token's variable and one --header. */
async function kgate(args: string[], env: Record<string, string> = {}): Promise<ProcessResult> {
  const result = await runKgate([...args, '-H', `X-Trace: ${TRACE}`], {
    cwd: work,
    env: {
      ...NO_PROXY_ENV,
      KGATE_KEY: server.keys.full,
      KGATE_KEY_UNSUBSCRIBED: '',
      KGATE_KEY_EXHAUSTED: '',
      KGATE_TEST_TOKEN: TOKEN,
      KGATE_BASE_URL: '',
      KGATE_CONFORM_OPTIONS: '',
      GITHUB_STEP_SUMMARY: '',
      ...env,
    },
    timeoutMs: 240_000,
  });
  outputs.push({ command: args.slice(0, 2).join(' '), result });
  return result;
}

/** Every request the front saw carries the user's headers, the Basic credentials and the User-Agent. */
function assertCarried(command: string, seen: SeenRequest[], userAgent = `kgate/${kgateVersion()}`): void {
  assert.ok(seen.length > 0, `${command}: the front saw requests`);
  const wrong = seen.filter(
    (request) =>
      request.headers.authorization !== BASIC ||
      request.headers['x-api-token'] !== `Bearer ${TOKEN}` ||
      request.headers['x-request-id'] !== 'kgate-headers-test' ||
      request.headers['x-trace'] !== TRACE ||
      request.headers['user-agent'] !== userAgent,
  );
  assert.deepEqual(
    wrong.slice(0, 3).map((request) => ({ target: request.target, headers: request.headers })),
    [],
    `${command}: ${wrong.length} of ${seen.length} requests without every added header`,
  );
}

/** What a conformance run folder may hold: its reports, and the folded curl lines they point at. */
const REPORT_FILE =
  /^(report\.html|summary\.md|summary\.json|junit\.xml|tests\.json|run\.json|envelope\.json|repro\/[^/]+\.txt)$/;

describe('headers, identity and credentials on every request', { concurrency: false }, () => {
  test('kgate conform: every request, the ones without a key included; a failing run writes and prints no secret, and its folder holds reports only', async () => {
    front.clear();
    const dir = join(work, 'conform-fail');
    const { code, stdout, stderr } = await kgate([
      'conform',
      '--base-url',
      `${withCredentials}/faults/evaluate-orderby-ignored`,
      '--grep',
      'GET /academic/v1.0/evaluate',
      '--checks',
      'orderby-is-honoured,auth-required',
      '--generate',
      '0',
      '--report-dir',
      dir,
      '--json',
    ]);
    assert.equal(code, 1, stderr);
    assertCarried('conform', front.seen);
    assert.ok(
      front.seen.some((request) => request.headers['ocp-apim-subscription-key'] === undefined),
      'auth-required sent requests without the key: they carried the other headers too',
    );
    const result = JSON.parse(stdout) as { targets: { failures: { check: string; curl?: string }[] }[] };
    const curl = result.targets[0]!.failures.find((failure) => failure.check === 'orderby-is-honoured')?.curl ?? '';
    for (const shown of [
      `-u '${USER}:***'`,
      "-H 'X-Api-Token: ***'",
      "-H 'X-Trace: ***'",
      "-H 'X-Request-Id: kgate-headers-test'",
      "-H 'Ocp-Apim-Subscription-Key: ***'",
    ])
      assert.ok(curl.includes(shown), `the curl line shows ${shown}: ${curl}`);
    assert.ok(!curl.includes('User-Agent'), "kgate's default User-Agent is left to curl's own");
    assert.ok(!curl.includes(`${USER}:${PASSWORD}@`) && curl.includes(`'${front.url}/faults/`), curl);
    const unexpected = filesBelow(dir).filter((file) => !REPORT_FILE.test(file));
    assert.deepEqual(unexpected, [], 'a failed run folder holds its reports only');
    assert.deepEqual(scratchLeft(dir), [], "the run's scratch folder is gone");
  });

  test('kgate conform --user-agent: a passing run names its own User-Agent, and its folder holds reports only', async () => {
    front.clear();
    const dir = join(work, 'conform-pass');
    const { code, stderr } = await kgate([
      'conform',
      '--base-url',
      withCredentials,
      '--grep',
      'GET /eventknowledge/v1.0/hotevents',
      '--checks',
      'response-matches-spec,auth-required',
      '--generate',
      '0',
      '--user-agent',
      'team-ci/2.0',
      '--report-dir',
      dir,
    ]);
    assert.equal(code, 0, stderr);
    assertCarried('conform --user-agent', front.seen, 'team-ci/2.0');
    assert.deepEqual(
      filesBelow(dir).filter((file) => !REPORT_FILE.test(file)),
      [],
      'a passed run folder holds its reports only',
    );
    assert.deepEqual(scratchLeft(dir), [], "the run's scratch folder is gone");
  });

  test('kgate fuzz', async () => {
    front.clear();
    const { code, stderr } = await kgate([
      'fuzz',
      '--base-url',
      withCredentials,
      '--operations',
      'hotEvents,evaluateGet',
      '--max-requests',
      '24',
      '--seed',
      '1',
      '--report-dir',
      join(work, 'fuzz'),
    ]);
    assert.equal(code, 0, stderr);
    assertCarried('fuzz', front.seen);
    assert.deepEqual(
      filesBelow(join(work, 'fuzz')).filter((file) => file.split('/').pop()!.startsWith('.')),
      [],
      'no scratch in the fuzz folder',
    );
  });

  test('kgate drift live', async () => {
    front.clear();
    const { code, stderr } = await kgate([
      'drift',
      'live',
      '--base-url',
      withCredentials,
      '--report-dir',
      join(work, 'drift'),
    ]);
    assert.ok(code === 0 || code === 1, stderr);
    assertCarried('drift live', front.seen);
  });

  test('kgate compare: both deployments', async () => {
    front.clear();
    const { code, stderr } = await kgate([
      'compare',
      '--base-url',
      withCredentials,
      '--against-url',
      `${withCredentials}/`,
      '--max-requests',
      '102',
      '--report-dir',
      join(work, 'compare'),
    ]);
    assert.ok(code === 0 || code === 1, stderr);
    assertCarried('compare', front.seen);
  });

  test("kgate load: the load generator's requests and the validated share", async () => {
    front.clear();
    const { code, stderr } = await kgate([
      'load',
      'smoke',
      '--base-url',
      withCredentials,
      '--duration',
      '2s',
      '--validate-share',
      '50',
      '--report-dir',
      join(work, 'load'),
    ]);
    assert.ok(code === 0 || code === 1, stderr);
    assertCarried('load', front.seen);
    // autocannon names its connection on every request; kgate's own client never does.
    assert.ok(
      front.seen.some((request) => request.headers.connection === 'keep-alive'),
      "the load generator's requests reached the front",
    );
    assert.ok(
      front.seen.some((request) => request.headers.connection === undefined),
      "the shared client's requests (preflight, validated share) reached the front",
    );
  });

  test('kgate probe body-limit', async () => {
    front.clear();
    const { code, stderr } = await kgate(['probe', 'body-limit', '--base-url', withCredentials]);
    assert.ok(code === 0 || code === 1, stderr);
    assertCarried('probe', front.seen);
  });

  test('no secret in any file the runs wrote, nor in what they printed', () => {
    const secrets = [PASSWORD, TOKEN, TRACE, BASIC.slice('Basic '.length), server.keys.full];
    assert.ok(existsSync(join(work, 'conform-fail', 'report.html')), 'the scan covers a failed run');
    assert.deepEqual(
      scanForSecrets(work, secrets).map((hit) => `${relative(work, hit.file)}: ${secrets.indexOf(hit.secret)}`),
      [],
      'no file of any run holds a secret',
    );
    for (const { command, result } of outputs)
      for (const secret of secrets)
        assert.ok(
          !result.stdout.includes(secret) && !result.stderr.includes(secret),
          `${command} printed secret ${secrets.indexOf(secret)}`,
        );
  });
});

describe('a key or header value HTTP forbids: one line naming it, exit 2, for every command', () => {
  const commands = [
    ['conform'],
    ['fuzz'],
    ['drift', 'live'],
    ['compare', '--against-url', 'http://127.0.0.1:9'],
    ['load', 'smoke'],
    ['probe', 'body-limit'],
  ];
  for (const command of commands) {
    test(`kgate ${command.join(' ')}`, async () => {
      mkdirSync(join(work, 'usage'), { recursive: true });
      const args = [...command, '--base-url', 'http://127.0.0.1:9'];
      const cases: { env: Record<string, string>; extra: string[]; want: RegExp }[] = [
        {
          env: { KGATE_KEY: `${server.keys.full}\n` },
          extra: [],
          want: /^kgate [a-z -]+: KGATE_KEY holds a line break \(LF\) at its end/,
        },
        {
          env: {},
          extra: ['-H', 'X-Tenant: acme\rInjected: yes'],
          want: /^kgate [a-z -]+: option --header: the value of X-Tenant holds a carriage return \(CR\)/,
        },
        {
          env: {},
          extra: ['-H', 'Ocp-Apim-Subscription-Key: x'],
          want: /Ocp-Apim-Subscription-Key is kgate's own header/,
        },
      ];
      for (const { env, extra, want } of cases) {
        const { code, stdout, stderr } = await kgate([...args, ...extra], env);
        const lines = stderr.split('\n').filter((line) => line.trim() !== '');
        assert.equal(code, 2, `${command.join(' ')}: ${stderr}`);
        assert.equal(lines.length, 1, `one line: ${stderr}`);
        assert.match(lines[0]!, want);
        assert.match(lines[0]!, /RFC 9110|kgate's own/, 'the rule is named');
        assert.equal(stdout, '');
        assert.ok(!stderr.includes(server.keys.full), 'the key itself is not echoed');
      }
    });
  }
});
