// test-runner: long (runs every judging command twice through the CLI, then every kind of page in Chromium)
// What a person sees agrees with the verdict, in one look across every command. Each command that
// judges a target (conform, fuzz, drift live, compare, load, probe) runs against a failing and a
// clean target of the reference server, once, as a CI job would run it; then:
// - the terminal: the captured output (stdout and stderr, as a CI log keeps them) says the exit
//   code's verdict, claims no count other than the verdict's, names no source file of kgate and
//   lists no tests one by one. Playwright's own reporter appears only when asked for
//   (--playwright-reporter), and then the same checks catch its counts and test lines, so they are
//   not blind to them. A long curl line shows its start, its length and the file holding it whole;
// - the pages: every kind (conformance, fuzz, drift live, drift history, compare, load), failing and
//   clean, opens in Chromium from disk with nothing fetched, has the same banner and chips (compared
//   as DOM structure), says the verdict in a word, marks every failing state with an icon and a word
//   beside its colour, hides its buttons in print, never holds the key; a long curl line folds and
//   its copy button copies it whole; the drift history of a field added to every answer shows one
//   entry with its places. Screenshots stay in reports/pages-test/ for a person to look at.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import type { CompareResult } from '../compare/run.ts';
import type { HistoryReport } from '../drift/history.ts';
import type { LiveResult } from '../drift/live.ts';
import type { LoadSummary } from '../load/report.ts';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import type { FuzzResult } from '../reporting/fuzz-page.ts';
import type { RunSummary } from '../reporting/summary.ts';
import { CHROMIUM, launchChromium } from '../scripts/chromium.ts';
import { type ProcessResult, ROOT, runKgate } from '../scripts/run-process.ts';
import {
  assertAgrees,
  compareVerdict,
  conformVerdict,
  contradictions,
  driftVerdict,
  fuzzVerdict,
  loadVerdict,
  sourcePaths,
  testLines,
  type VerdictCounts,
} from '../scripts/terminal-claims.ts';

/** Where the screenshots stay after the test. */
const SHOTS = join(ROOT, 'reports', 'pages-test');

let server: ReferenceServer;
/** A reference server that lets one request a second through on the two rate-limited APIs. */
let limited: ReferenceServer;
let dir: string;

const fault = (name: string) => `${server.url}/faults/${name}`;

/** Runs kgate as a CI job would: no terminal, the reference keys, nothing inherited that picks a target. */
function kgate(args: string[]): Promise<ProcessResult> {
  return runKgate(args, {
    cwd: dir,
    timeoutMs: 180_000,
    env: {
      KGATE_KEY: server.keys.full,
      KGATE_AGAINST_KEY: server.keys.full,
      KGATE_BASE_URL: '',
      KGATE_CONFORM_OPTIONS: '',
      GITHUB_STEP_SUMMARY: '',
      KGATE_KEY_UNSUBSCRIBED: '',
      KGATE_KEY_EXHAUSTED: '',
    },
  });
}

const readJson = <T>(path: string) => JSON.parse(readFileSync(path, 'utf8')) as T;

/** One run of a command: its output, exit code, page and the counts its verdict gives. */
interface Run {
  result: ProcessResult;
  code: 0 | 1;
  verdict: VerdictCounts;
  page: string;
}

type Kind = 'conformance' | 'fuzz' | 'drift live' | 'drift history' | 'compare' | 'load';
const runs = new Map<string, Run>();
const runOf = (kind: Kind, state: 'failing' | 'clean') => runs.get(`${kind} ${state}`)!;

/** The failing conformance target: its failure's request carries an expression of about 1,900 characters. */
const LONG_FAULT = 'evaluate-long-expr-echo-cut';

async function conform(target: string, code: 0 | 1, state: string, extra: string[] = []): Promise<Run> {
  const reports = join(dir, `conform-${state}`);
  const result = await kgate([
    'conform',
    '--base-url',
    target,
    '--grep',
    'evaluate',
    '--report-dir',
    reports,
    ...extra,
  ]);
  const verdict = conformVerdict(readJson<RunSummary>(join(reports, 'summary.json')));
  return { result, code, verdict, page: join(reports, 'report.html') };
}

async function fuzz(target: string, code: 0 | 1, state: string): Promise<Run> {
  const reports = join(dir, `fuzz-${state}`);
  const result = await kgate([
    'fuzz',
    '--base-url',
    target,
    '--operations',
    'evaluateGet,evaluatePost',
    '--max-requests',
    '160',
    '--seed',
    '7',
    '--report-dir',
    reports,
  ]);
  const verdict = fuzzVerdict(readJson<FuzzResult>(join(reports, 'summary.json')));
  return { result, code, verdict, page: join(reports, 'report.html') };
}

/** Two live drift runs into one history: the second run's folder, and the history page written from the file. */
async function drift(target: string, code: 0 | 1, state: string): Promise<{ live: Run; history: Run }> {
  const reports = join(dir, `drift-${state}`);
  const file = join(dir, `drift-${state}.jsonl`);
  await kgate(['drift', 'live', '--base-url', target, '--report-dir', join(reports, 'first'), '--history', file]);
  const result = await kgate(['drift', 'live', '--base-url', target, '--report-dir', reports, '--history', file]);
  const verdict = driftVerdict(readJson<LiveResult & { history: HistoryReport }>(join(reports, 'drift.json')));
  const historyPage = join(dir, `history-${state}.html`);
  const printed = await kgate(['drift', 'history', file, '--html', historyPage]);
  return {
    // The live run's counts, and the history's (--history): its changes and places, and its states.
    live: { result, code, verdict, page: join(reports, 'report.html') },
    history: { result: printed, code: 0, verdict: {}, page: historyPage },
  };
}

async function compare(candidate: string, code: 0 | 1, state: string): Promise<Run> {
  const reports = join(dir, `compare-${state}`);
  const result = await kgate([
    'compare',
    '--base-url',
    candidate,
    '--against-url',
    server.url,
    // The battery and 20 generated requests (and the latency schedule's 5 pairs per operation).
    '--max-requests',
    code === 1 ? '175' : '110',
    // Latency on the failing run only (its verdict is its differences'): a few samples on a busy
    // machine may see a regression that is not there, and the clean run must pass.
    ...(code === 1 ? ['--latency', '--latency-samples', '5'] : []),
    '--report-dir',
    reports,
  ]);
  const verdict = compareVerdict(readJson<CompareResult>(join(reports, 'summary.json')));
  return { result, code, verdict, page: join(reports, 'report.html') };
}

/** A smoke run; the failing one at 20 arrivals a second, so the rate limit of 1/s bites. */
async function load(target: string, code: 0 | 1, state: string): Promise<Run> {
  const reports = join(dir, `load-${state}`);
  const result = await kgate([
    'load',
    'smoke',
    '--base-url',
    target,
    ...(code === 1 ? ['--max-rps', '20'] : []),
    '--duration',
    '2s',
    '--report-dir',
    reports,
  ]);
  const summary = readJson<LoadSummary>(join(reports, 'summary.json'));
  // The clean target meets the smoke thresholds unless a busy machine stalls one answer past the
  // 500 ms p95: what is held here is that the output agrees with the verdict, whichever it is.
  const judged: 0 | 1 = code === 0 && !summary.passed ? 1 : code;
  if (judged !== code) console.log(`load ${state}: ${summary.verdicts.map((v) => `${v.rule} ${v.status}`).join('; ')}`);
  return { result, code: judged, verdict: loadVerdict(summary), page: join(reports, 'report.html') };
}

before(async () => {
  server = await startReferenceServer({ quiet: true });
  // The same seed, so the same keys; a rate limit of 1/s breaches the smoke scenario's error rate.
  limited = await startReferenceServer({ quiet: true, rateLimit: 1 });
  dir = mkdtempSync(join(tmpdir(), 'kgate-outputs-'));
  // One after the other: each run is timed and paced by itself, as in a CI job.
  runs.set('conformance failing', await conform(fault(LONG_FAULT), 1, 'failing'));
  runs.set('conformance clean', await conform(server.url, 0, 'clean'));
  runs.set('fuzz failing', await fuzz(fault('evaluate-wide-or-500'), 1, 'failing'));
  runs.set('fuzz clean', await fuzz(server.url, 0, 'clean'));
  for (const [target, code, state] of [
    [fault('every-answer-extra-request-id'), 1, 'failing'],
    [server.url, 0, 'clean'],
  ] as const) {
    const { live, history } = await drift(target, code, state);
    runs.set(`drift live ${state}`, live);
    runs.set(`drift history ${state}`, history);
  }
  runs.set('compare failing', await compare(fault('every-answer-extra-request-id'), 1, 'failing'));
  runs.set('compare clean', await compare(server.url, 0, 'clean'));
  runs.set('load failing', await load(limited.url, 1, 'failing'));
  runs.set('load clean', await load(server.url, 0, 'clean'));
});
after(async () => {
  await server?.close();
  await limited?.close();
  rmSync(dir, { recursive: true, force: true });
});

function agrees(name: string, run: Pick<Run, 'result' | 'code' | 'verdict'>): void {
  assertAgrees(name, run.result, { code: run.code, verdict: run.verdict, secrets: [server.keys.full] });
}

describe('the terminal agrees with the verdict', () => {
  for (const kind of ['conformance', 'fuzz', 'drift live', 'compare', 'load'] as const) {
    test(`kgate ${kind}: failing and clean`, () => {
      for (const state of ['failing', 'clean'] as const) agrees(`${kind} ${state}`, runOf(kind, state));
    });
  }

  test('kgate conform: a long curl line shows its start and length, and a file holds it whole', () => {
    const { stdout } = runOf('conformance', 'failing').result;
    const folded = /reproduce: {2}(curl [^\n]*?)… \(([\d,]+) characters; whole line in (\S+)\)/.exec(stdout);
    assert.ok(folded, stdout);
    const [, start, length, file] = folded;
    const whole = readFileSync(file!, 'utf8').trim();
    assert.equal(whole.length, Number(length!.replace(/,/g, '')), 'the file holds the whole line');
    assert.ok(whole.startsWith(start!) && whole.length > 1000, 'and it is the line the terminal starts');
    assert.match(whole, /^curl -sS -H 'Ocp-Apim-Subscription-Key: \*\*\*' 'http:\/\/127\.0\.0\.1:\d+\/faults\//);
  });

  test('kgate drift live: a field on every answer is one change with its places, counted once', () => {
    const run = runOf('drift live', 'failing');
    const [changes, places] = [run.verdict.changes, run.verdict.places] as number[][];
    assert.equal(changes![0], 1, 'one change');
    assert.ok(places![0]! >= 20, `at every operation and status: ${places![0]} places`);
    assert.equal(run.result.stdout.split('\n').filter((line) => /^FAIL /.test(line)).length, 1, run.result.stdout);
  });

  test('kgate compare: a field on every answer is one difference with its operations', () => {
    const run = runOf('compare', 'failing');
    assert.equal(run.verdict.differences, 1);
    assert.ok((run.verdict.places as number) >= 10, `${run.verdict.places} operations`);
  });

  test('kgate probe: failing and clean', async () => {
    for (const [target, code] of [
      [fault('similarity-body-limit-500'), 1],
      [server.url, 0],
    ] as const) {
      const json = await kgate(['probe', 'body-limit', '--base-url', target, '--json']);
      const problems = (JSON.parse(json.stdout) as { problems: string[] }).problems.length;
      const result = await kgate(['probe', 'body-limit', '--base-url', target]);
      agrees(`probe ${target}`, { result, code, verdict: { problems } });
      // Its page, like every command's: the same verdict and the same count of problems.
      const page = /reports: open (\S+report\.html)/.exec(result.stdout)?.[1];
      assert.ok(page && existsSync(page), `the page named on the terminal: ${result.stdout}`);
      const html = readFileSync(page, 'utf8');
      assert.match(html, new RegExp(`<header class="banner ${code === 1 ? 'fail' : 'pass'}" id="verdict">`));
      assert.match(html, new RegExp(`data-count="problems"><b>${problems}</b>`));
      assert.match(html, /largest accepted body|no body limit found/);
    }
  });

  test("kgate conform --playwright-reporter list shows Playwright's own lines, which these checks catch", async () => {
    const run = await conform(fault('evaluate-entity-prob-missing'), 1, 'list', ['--playwright-reporter', 'list']);
    const { stdout, stderr } = run.result;
    assert.equal(run.result.code, 1, stderr);
    assert.ok(testLines(stderr).length > 0, 'Playwright lists its tests on stderr when asked');
    assert.ok(sourcePaths(stderr).length > 0, 'naming their source files');
    assert.ok(
      contradictions(stderr, run.verdict).some((item) => item.word === 'passed'),
      "its 'N passed' counts tests, not the verdict's cells",
    );
    assert.deepEqual(contradictions(stdout, run.verdict), [], "stdout keeps kgate's summary only");
    const bad = await kgate(['conform', '--playwright-reporter', 'html']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /option --playwright-reporter takes one of list, line, dot, got 'html'/);
  });
});

/** The banner's DOM as tags and classes (the verdict's class left out; lists not entered): the same on every page. */
const BANNER_SHAPE = `(() => {
  const name = (node) => [node.tagName.toLowerCase(), ...String(node.className).split(' ').filter((c) => c && !['pass', 'fail', 'info'].includes(c))].join('.');
  const walk = (node) => name(node) + (node.children.length && !['DL', 'UL'].includes(node.tagName) ? '(' + Array.from(node.children).map(walk).join(',') + ')' : '');
  return walk(document.querySelector('header.banner'));
})()`;

describe('every page has one look', () => {
  const KINDS: Kind[] = ['conformance', 'fuzz', 'drift live', 'drift history', 'compare', 'load'];

  test('the drift history of a field added to every answer is one entry with its places', () => {
    const html = readFileSync(runOf('drift history', 'failing').page, 'utf8');
    const rows = html.match(/<tr[^>]*data-places="(\d+)"/g) ?? [];
    assert.equal(rows.length, 1, 'one entry');
    assert.ok(Number(/data-places="(\d+)"/.exec(rows[0]!)![1]) >= 20, rows[0]);
    assert.match(html, /data-count="places"><b>(\d+)<\/b>/);
    assert.match(html, /1 change \(0 new, 1 ongoing, 0 flaky, 0 gone\) at \d+ places/);
  });

  test('in Chromium: the same banner and chips on all six kinds, failing and clean; verdict in a word; prints; nothing fetched', {
    skip: !existsSync(CHROMIUM) && 'no /usr/bin/chromium',
  }, async () => {
    rmSync(SHOTS, { recursive: true, force: true });
    mkdirSync(SHOTS, { recursive: true });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      const shapes = new Map<string, string>();
      for (const kind of KINDS) {
        for (const state of ['failing', 'clean'] as const) {
          const name = `${kind} ${state}`;
          const run = runOf(kind, state);
          await page.goto(pathToFileURL(realpathSync(run.page)).href);
          const want = kind === 'drift history' ? 'info' : run.code === 1 ? 'fail' : 'pass';
          assert.equal(await page.locator(`header.banner.${want}`).count(), 1, `${name}: the ${want} banner`);
          const word = (await page.locator('.banner .word').textContent()) ?? '';
          assert.equal(word, { fail: 'FAIL', pass: 'PASS', info: 'HISTORY' }[want], name);
          assert.match((await page.title()) ?? '', new RegExp(`^kgate [a-z ]+: ${word}`), `${name}: the title says it`);
          const chips = await page.locator('ul.counts li.chip[data-count]').count();
          assert.ok(chips >= 3, `${name}: count chips (${chips})`);
          for (const chip of await page.locator('ul.counts li.chip').all())
            assert.match((await chip.textContent()) ?? '', /^\d+ \S/, `${name}: a chip is a number and its label`);
          if (want === 'pass') {
            assert.equal(
              await page.locator('.chip.fail, td.fail, .mark.fail, .badge.fail').count(),
              0,
              `${name}: nothing fails`,
            );
          }
          if (want === 'fail') assert.ok((await page.locator('.chip.fail').count()) > 0, `${name}: a failing chip`);
          // Without colour: every failing mark says so in a word or an icon.
          for (const mark of await page.locator('td.fail, .mark.fail, .badge.fail').all())
            assert.match(
              (await mark.textContent()) ?? '',
              /✗|FAIL|REGRESSION|differ/,
              `${name}: a failing mark has its word`,
            );
          assert.equal((await page.content()).includes(server.keys.full), false, `${name}: the key is not on the page`);
          shapes.set(name, await page.evaluate(BANNER_SHAPE));
          await page.screenshot({ path: join(SHOTS, `${kind.replace(' ', '-')}-${state}.png`), fullPage: true });
          await page.emulateMedia({ media: 'print' });
          for (const button of await page.locator('button.copy').all())
            assert.equal(await button.isVisible(), false, `${name}: no buttons on paper`);
          assert.ok((await page.pdf({ format: 'A4' })).length > 5_000, `${name}: prints`);
          await page.emulateMedia({ media: 'screen' });
        }
      }
      const [first, ...rest] = [...shapes.entries()];
      for (const [name, shape] of rest) assert.equal(shape, first![1], `${name} has the banner of ${first![0]}`);
      assert.match(
        first![1],
        /^header\.banner\(div\.verdict\(span\.icon,span\.word\),div\.about\(h1\(span\.headline\),dl\.facts,ul\.counts\)\)$/,
      );
      assert.deepEqual(
        requests.filter((url) => !url.startsWith('file:')),
        [],
        'no page loads anything from elsewhere',
      );

      // A long curl line folds: its start and length show, the whole line is one click away and copies whole.
      await page.goto(pathToFileURL(realpathSync(runOf('conformance', 'failing').page)).href);
      const finding = page.locator('#failures article.finding', { has: page.locator('details.fold') }).first();
      const summary = (await finding.locator('.curl details.fold summary').textContent()) ?? '';
      const length = Number(/\(([\d,]+) characters: show all\)/.exec(summary)?.[1]?.replace(/,/g, ''));
      assert.ok(length > 1000, summary);
      const whole = (await finding.locator('.curl details.fold pre[id]').textContent()) ?? '';
      assert.equal(whole.length, length, 'the folded element holds the whole line');
      assert.equal(await finding.locator('.curl details.fold pre[id]').isVisible(), false, 'folded until asked');
      await finding.locator('.curl details.fold summary').click();
      assert.equal(await finding.locator('.curl details.fold pre[id]').isVisible(), true, 'one click shows it whole');
      await finding.locator('button.copy').first().click();
      await finding
        .locator('button.copy', { hasText: /Copied|Selected/ })
        .first()
        .waitFor({ timeout: 30_000 });
      const copied = (await page.evaluate('String(window.getSelection())')) as string;
      if (copied) assert.equal(copied.length, length, 'the copy button takes the whole line');
    } finally {
      await browser.close();
    }
  });
});
