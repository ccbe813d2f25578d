import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import { readConformOptions } from '../run/options.ts';
import { suiteProjects } from '../run/selection.ts';
import { type ProcessResult, runKgate } from '../scripts/run-process.ts';
import { checkCompatible, MergeError, mergeRuns, type RunFolder } from './merge.ts';
import { RUN_FILE, type RunMeta } from './run-meta.ts';
import { missingShards, type RunSummary, renderSummary, type TargetSummary, type TestRecord } from './summary.ts';

const FAULT = 'evaluate-year-as-string';

function meta(overrides: Partial<RunMeta> = {}): RunMeta {
  return {
    kgateRun: 1,
    kgateVersion: '0.1.0',
    target: 'http://t',
    specSha256: 'a'.repeat(64),
    seed: 1,
    generate: 471,
    selection: { strict: false, rateLimit: false },
    shard: { current: 1, total: 3 },
    startedAt: '2026-11-24T05:00:00.000Z',
    ...overrides,
  };
}

const record = (check: string, status: TestRecord['status'] = 'passed'): TestRecord => ({
  project: 'conformance',
  operation: 'GET /academic/v1.0/evaluate',
  check,
  status,
  findings: [],
  reads: [],
  notes: [],
  durationMs: 1,
});

function folder(name: string, overrides: Partial<RunMeta> = {}, records: TestRecord[] = []): RunFolder {
  return {
    dir: name,
    meta: meta(overrides),
    records,
    summary: { verdict: 'pass', exitCode: 0, strict: false, durationMs: 1, targets: [] } as RunSummary,
  };
}

describe('kgate report merge: which folders merge', () => {
  const REFUSED: Array<{ given: RunFolder[]; want: RegExp }> = [
    {
      given: [folder('a'), folder('b', { target: 'http://u', shard: { current: 2, total: 3 } })],
      want: /b and a are runs of different targets \(http:\/\/u vs http:\/\/t\)/,
    },
    {
      given: [folder('a'), folder('b', { specSha256: 'b'.repeat(64), shard: { current: 2, total: 3 } })],
      want: /different specs \(spec sha256 bbbbbbbbbbbb vs spec sha256 aaaaaaaaaaaa\)/,
    },
    {
      given: [folder('a'), folder('b', { kgateVersion: '0.2.0', shard: { current: 2, total: 3 } })],
      want: /different kgate versions \(kgate 0\.2\.0 vs kgate 0\.1\.0\)/,
    },
    {
      given: [folder('a'), folder('b', { seed: 7, shard: { current: 2, total: 3 } })],
      want: /different seeds \(seed 7 vs seed 1\)/,
    },
    {
      given: [
        folder('a'),
        folder('b', {
          selection: { strict: false, rateLimit: false, checks: ['auth-required'] },
          shard: { current: 2, total: 3 },
        }),
      ],
      want: /different check selections/,
    },
    { given: [folder('a'), folder('b')], want: /a and b are both shard 1 of 3: give each shard once/ },
    {
      given: [folder('a'), folder('b', { shard: { current: 2, total: 4 } })],
      want: /split the run differently \(shard 1\/3 vs 2\/4\)/,
    },
    { given: [folder('a'), folder('b', { shard: undefined })], want: /b is a whole run, not a shard/ },
    {
      given: [folder('a', { shard: undefined, merged: { total: 2, shards: [1, 2], missing: [] } })],
      want: /a is already a merged run/,
    },
  ];
  for (const { given, want } of REFUSED) {
    test(`refused: ${want.source}`, () => {
      assert.throws(
        () => checkCompatible(given),
        (error: unknown) => error instanceof MergeError && want.test(error.message),
      );
    });
  }

  const MISSING: Array<{ given: { folders: RunFolder[]; expectShards?: number }; want: number[] }> = [
    { given: { folders: [folder('a'), folder('c', { shard: { current: 3, total: 3 } })] }, want: [2] },
    { given: { folders: [], expectShards: 4 }, want: [1, 2, 3, 4] },
    {
      given: {
        folders: [1, 2, 3].map((current) =>
          folder(`s${current}`, { shard: { current, total: 3 } }, [record(`c${current}`)]),
        ),
      },
      want: [],
    },
  ];
  for (const { given, want } of MISSING) {
    test(`shards ${given.folders.map((item) => item.meta.shard?.current).join(',') || 'none'} of ${given.expectShards ?? 3}: missing ${want.join(',') || 'none'}`, () => {
      const merged = mergeRuns(given.folders, { expectShards: given.expectShards, reportDir: 'out' });
      assert.deepEqual(merged.run.shards?.missing, want);
      assert.equal(merged.run.verdict, want.length > 0 ? 'fail' : 'pass');
    });
  }

  test('the summary says which shard a folder is, and which shards a merged run lacks', () => {
    const base = { verdict: 'fail', exitCode: 1, strict: false, durationMs: 1, targets: [] } as RunSummary;
    assert.match(
      renderSummary({ ...base, shard: { current: 2, total: 3 } }, []),
      /Shard 2 of 3: the counts are this shard's/,
    );
    assert.match(
      renderSummary({ ...base, shards: { total: 4, merged: [1, 4], missing: [2, 3] } }, []),
      /Merged from shards 1, 4 of 4: \*\*shards 2 and 3 of 4 missing\*\*, so the run is incomplete and fails/,
    );
    const CASES: Array<{ given: number[]; want: string | undefined }> = [
      { given: [], want: undefined },
      { given: [2], want: 'shard 2 of 4 missing' },
      { given: [1, 2, 3], want: 'shards 1, 2 and 3 of 4 missing' },
    ];
    for (const { given, want } of CASES) assert.equal(missingShards({ total: 4, merged: [], missing: given }), want);
  });

  test('--expect-shards must agree with the folders, and is needed when no folder is given', () => {
    assert.throws(
      () => mergeRuns([folder('a')], { expectShards: 4, reportDir: 'o' }),
      /says 4 shards, but the folders are shards of 3/,
    );
    assert.throws(() => mergeRuns([], { reportDir: 'o' }), /no run folder found/);
  });

  test("the merged run is judged against the shards' baseline: an accepted failure stays known", () => {
    const failing: TestRecord = {
      ...record('orderby-is-honoured', 'failed'),
      findings: [
        {
          check: 'orderby-is-honoured',
          operation: 'GET /academic/v1.0/evaluate',
          title: 'years not in ascending order',
          received: 'r',
          documented: 'd',
        },
      ],
    };
    const baseline = {
      file: 'kgate.baseline.json',
      today: '2026-11-24',
      sha256: 'b'.repeat(64),
      baseline: {
        kgateConformanceBaseline: 1 as const,
        failures: [{ check: 'orderby-is-honoured', operation: 'GET /academic/v1.0/evaluate', reason: 'release 4.2' }],
      },
    };
    const shards = [
      folder('a', { baseline, shard: { current: 1, total: 2 } }, [failing]),
      folder('b', { baseline, shard: { current: 2, total: 2 } }, [record('auth-required')]),
    ];
    const merged = mergeRuns(shards, { reportDir: 'o' });
    assert.equal(merged.run.verdict, 'pass');
    assert.equal(merged.run.targets[0]!.counts.known, 1);
    assert.equal(merged.run.targets[0]!.known?.[0]?.baseline?.reason, 'release 4.2');
    const without = mergeRuns(
      shards.map((item) => ({ ...item, meta: { ...item.meta, baseline: undefined } })),
      { reportDir: 'o' },
    );
    assert.equal(without.run.verdict, 'fail');
  });

  test('a test two shards recorded (a teardown project runs in each) counts once', () => {
    const shared = { ...record('rate-limit-signalled'), project: 'rate-limit' };
    const merged = mergeRuns(
      [folder('a', {}, [record('x'), shared]), folder('b', { shard: { current: 2, total: 2 } }, [shared])].map(
        (item) => ({
          ...item,
          meta: { ...item.meta, shard: { ...item.meta.shard!, total: 2 } },
        }),
      ),
      { reportDir: 'o' },
    );
    assert.equal(merged.records.length, 2);
    assert.equal(merged.run.targets[0]!.tests.total, 2);
  });
});

test('of a sharded run, only the last shard runs the rate-limit teardown (Playwright would run it in every shard); an unsharded run has them in its own project', () => {
  const options = readConformOptions('{"rateLimit":true,"embedded":true}', false);
  const CASES: Array<{ given: RunMeta['shard']; want: string[] }> = [
    { given: undefined, want: ['conformance'] },
    { given: { current: 1, total: 3 }, want: ['conformance'] },
    { given: { current: 2, total: 3 }, want: ['conformance'] },
    { given: { current: 3, total: 3 }, want: ['conformance', 'rate-limit'] },
  ];
  for (const { given, want } of CASES) {
    const projects = suiteProjects({ ...options, shard: given });
    assert.deepEqual(
      projects.map((project) => project.name),
      want,
      JSON.stringify(given),
    );
    assert.equal(projects[0]!.teardown, want.includes('rate-limit') ? 'rate-limit' : undefined);
    // Unsharded, the rate-limit tests are the project's own (run after the other tests of the operations they burst); sharded, the main project leaves them out.
    const title = ' conformance operations.spec.ts GET /answersearch/v7.0/search rate-limit-signalled @rate-limit';
    const inverted = [projects[0]!.grepInvert ?? []].flat();
    assert.equal(
      inverted.some((pattern) => pattern.test(title)),
      given !== undefined,
      `${JSON.stringify(given)}: the main project's selection of the rate-limit tests`,
    );
  }
});

describe('kgate report merge: a sharded run against a fault', () => {
  let server: ReferenceServer;
  let dir: string;
  before(async () => {
    server = await startReferenceServer({ quiet: true });
    dir = mkdtempSync(join(tmpdir(), 'kgate-merge-'));
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const kgate = (args: string[], env: Record<string, string> = {}): Promise<ProcessResult> =>
    runKgate(args, {
      cwd: dir,
      env: {
        KGATE_BASE_URL: '',
        KGATE_CONFORM_OPTIONS: '',
        GITHUB_STEP_SUMMARY: '',
        KGATE_KEY: server.keys.full,
        ...env,
      },
      timeoutMs: 300_000,
    });
  const conform = (name: string, target: string, ...more: string[]) =>
    kgate(['conform', '--base-url', target, '--workers', '2', '--report-dir', join(dir, name), '--json', ...more]);
  const summary = (name: string) => JSON.parse(readFileSync(join(dir, name, 'summary.json'), 'utf8')) as RunSummary;
  const counts = (target: TargetSummary) => ({
    ...target.counts,
    tests: target.tests.total,
    matrix: target.matrix,
    failures: target.failures
      .map((item) => `${item.check} ${item.operation} ${item.title} ${item.pointer ?? ''}`)
      .sort(),
    warnings: target.warnings.map((item) => `${item.check} ${item.operation} ${item.title}`).sort(),
    skips: target.skips.map((item) => `${item.check} ${item.operation}`).sort(),
    tripped: target.tripped,
  });

  test('three shards merged count exactly what the unsharded run counts; a missing shard fails; two targets are refused', async () => {
    const faulty = `${server.url}/faults/${FAULT}`;
    const whole = await conform('whole', faulty);
    assert.equal(whole.code, 1, whole.stderr);
    for (const shard of [1, 2, 3]) {
      const part = await conform(`shard-${shard}`, faulty, '--shard', `${shard}/3`);
      assert.ok(part.code === 0 || part.code === 1, part.stderr);
      const written = JSON.parse(readFileSync(join(dir, `shard-${shard}`, RUN_FILE), 'utf8')) as RunMeta;
      assert.deepEqual(written.shard, { current: shard, total: 3 });
      assert.equal(written.target, faulty);
      assert.equal(written.seed, 1);
    }
    const shardTests = [1, 2, 3].map((shard) => summary(`shard-${shard}`).targets[0]!.tests.total);
    assert.ok(
      shardTests.every((count) => count < summary('whole').targets[0]!.tests.total),
      `each shard runs part of the suite (${shardTests})`,
    );

    const merged = await kgate([
      'report',
      'merge',
      join(dir, 'shard-1'),
      join(dir, 'shard-2'),
      join(dir, 'shard-3'),
      '--report-dir',
      join(dir, 'merged'),
    ]);
    assert.equal(merged.code, 1, merged.stderr);
    assert.match(merged.stdout, /kgate report merge: FAIL: \d+ failed cell\(s\)/);
    const [one] = summary('merged').targets;
    const [reference] = summary('whole').targets;
    assert.deepEqual(counts(one!), counts(reference!), 'the merged counts are those of the unsharded run');
    assert.ok(reference!.tripped.includes('response-matches-spec'), 'the fault was caught');
    for (const file of ['summary.md', 'junit.xml', 'tests.json', 'run.json'])
      assert.ok(existsSync(join(dir, 'merged', file)), file);
    const junit = readFileSync(join(dir, 'merged', 'junit.xml'), 'utf8');
    const wholeJunit = readFileSync(join(dir, 'whole', 'junit.xml'), 'utf8');
    const attribute = (xml: string, name: string) => xml.match(new RegExp(`<testsuites [^>]*${name}="(\\d+)"`))![1];
    assert.equal(
      Number(attribute(junit, 'tests')),
      Number(attribute(wholeJunit, 'tests')) + 3,
      'plus one case per shard',
    );
    assert.equal(attribute(junit, 'failures'), attribute(wholeJunit, 'failures'));
    assert.equal(attribute(junit, 'skipped'), attribute(wholeJunit, 'skipped'));

    // A folder holding the shards' folders (as download-artifact writes them) with shard 2 left out.
    const downloaded = join(dir, 'downloaded');
    mkdirSync(downloaded);
    for (const shard of [1, 3])
      cpSync(join(dir, `shard-${shard}`), join(downloaded, `kgate-shard-${shard}`), { recursive: true });
    const missing = await kgate(['report', 'merge', downloaded, '--report-dir', join(dir, 'missing'), '--json']);
    assert.equal(missing.code, 1);
    const result = JSON.parse(missing.stdout) as RunSummary;
    assert.equal(result.verdict, 'fail');
    assert.deepEqual(result.shards, { total: 3, merged: [1, 3], missing: [2] });
    assert.match(readFileSync(join(dir, 'missing', 'summary.md'), 'utf8'), /\*\*shard 2 of 3 missing\*\*/);
    assert.match(readFileSync(join(dir, 'missing', 'junit.xml'), 'utf8'), /<failure message="shard 2 of 3 missing">/);

    // Shard 2 of another target.
    const other = await conform('other-2', server.url, '--shard', '2/3');
    assert.ok(other.code === 0 || other.code === 1, other.stderr);
    const mixed = await kgate(['report', 'merge', join(dir, 'shard-1'), join(dir, 'other-2'), join(dir, 'shard-3')]);
    assert.equal(mixed.code, 2);
    assert.equal(mixed.stderr.trim().split('\n').length, 1, mixed.stderr);
    assert.match(
      mixed.stderr,
      /other-2 and .*shard-1 are runs of different targets \(http:\/\/127\.0\.0\.1:\d+ vs http:\/\/127\.0\.0\.1:\d+\/faults\/evaluate-year-as-string\)/,
    );

    const twice = await kgate(['report', 'merge', join(dir, 'shard-1'), join(dir, 'shard-1')]);
    assert.equal(twice.code, 2);
    assert.match(twice.stderr, /are both shard 1 of 3/);
    const all = [whole, merged, missing, mixed].map((item) => item.stdout + item.stderr).join('\n');
    assert.equal(all.includes(server.keys.full), false, 'the key is never printed');
    assert.equal(readFileSync(join(dir, 'merged', 'tests.json'), 'utf8').includes(server.keys.full), false);
  });

  const USAGE: Array<{ given: string[]; want: RegExp }> = [
    { given: ['report', 'merge', '--shards'], want: /kgate report merge: unknown option --shards/ },
    { given: ['report', 'merge'], want: /takes the run folders of the shards \(DIR\.\.\.\); got none/ },
    { given: ['report', 'merge', '/nonexistent/run'], want: /no such folder '\/nonexistent\/run'/ },
    {
      given: ['report', 'merge', '.', '--expect-shards', 'two'],
      want: /option --expect-shards takes a whole number of shards from 1 to 1000, got 'two' \(not a whole number\)/,
    },
  ];
  for (const { given, want } of USAGE) {
    test(`kgate ${given.join(' ')} -> one line, exit 2`, async () => {
      const { code, stderr } = await kgate(given);
      assert.equal(code, 2);
      assert.equal(stderr.trim().split('\n').length, 1, stderr);
      assert.match(stderr, want);
    });
  }

  test('a folder without run.json is refused, naming it', async () => {
    const old = join(dir, 'old-run');
    mkdirSync(old, { recursive: true });
    writeFileSync(join(old, 'summary.json'), '{}');
    const { code, stderr } = await kgate(['report', 'merge', old]);
    assert.equal(code, 2);
    assert.match(stderr, /old-run has no run\.json/);
  });
});
