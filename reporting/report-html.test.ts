// report.html of real `kgate conform` runs: a clean run, then a failing one in the same reports
// folder. Every report file of the failing run counts its failures, and they agree; the page,
// opened in Chromium, says FAIL, names the failing check and operation, shows the curl line with
// the key masked, and compares with the clean run before it. Screenshots for a person to look at
// are left in reports/report-html-test/.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { REPORT_HTML } from '../page/page.ts';
import { scanForSecrets } from '../proof/secret-scan.ts';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import { CHROMIUM, launchChromium } from '../scripts/chromium.ts';
import { ROOT, runKgate } from '../scripts/run-process.ts';
import type { RunSummary } from './summary.ts';

/** Where the runs and the screenshots stay after the test, for a person to open. */
const OUT = join(ROOT, 'reports', 'report-html-test');
const FAULT = 'evaluate-year-as-string';
const OPERATION = 'GET /academic/v1.0/evaluate';
const SELECTION = [
  '--grep',
  'GET /academic/v1.0/evaluate',
  '--checks',
  'response-matches-spec,paging-is-consistent,orderby-is-honoured,auth-required,request-is-echoed',
  '--generate',
  '0',
];

let server: ReferenceServer;
let clean: RunSummary;
let failing: RunSummary;

async function conform(baseUrl: string): Promise<RunSummary> {
  const { code, stdout, stderr } = await runKgate(['conform', '--base-url', baseUrl, ...SELECTION, '--json'], {
    cwd: OUT,
    env: { KGATE_BASE_URL: '', KGATE_CONFORM_OPTIONS: '', GITHUB_STEP_SUMMARY: '', KGATE_KEY: server.keys.full },
  });
  assert.ok(code === 0 || code === 1, `kgate conform exit ${code}: ${stderr}`);
  return JSON.parse(stdout) as RunSummary;
}

before(async () => {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  server = await startReferenceServer({ quiet: true });
  clean = await conform(server.url);
  failing = await conform(`${server.url}/faults/${FAULT}`);
});
after(async () => {
  await server?.close();
});

/** The counts each report file states: cells passed, failed, skipped. */
function countsOf(dir: string) {
  const json = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as RunSummary;
  const markdown = readFileSync(join(dir, 'summary.md'), 'utf8');
  const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
  const html = readFileSync(join(dir, REPORT_HTML), 'utf8');
  const md = /(\d+) passed, (\d+) failed, (?:\d+ known \(baseline\), )?(\d+) warnings, (\d+) skipped/.exec(markdown);
  const suites = /<testsuites [^>]*tests="(\d+)" failures="(\d+)" skipped="(\d+)"/.exec(junit);
  const chip = (name: string) => Number(new RegExp(`data-count="${name}"><b>(\\d+)</b>`).exec(html)?.[1]);
  const cells = (state: string) => (html.match(new RegExp(`<td class="${state}">`, 'g')) ?? []).length;
  const { counts } = json.targets[0]!;
  return {
    'summary.json': { failed: counts.failed, passed: counts.passed, warned: counts.warned, skipped: counts.skipped },
    'summary.md': {
      failed: Number(md?.[2]),
      passed: Number(md?.[1]),
      warned: Number(md?.[3]),
      skipped: Number(md?.[4]),
    },
    'junit.xml': {
      failed: Number(suites?.[2]),
      passed: Number(suites?.[1]) - Number(suites?.[2]) - Number(suites?.[3]) - counts.warned,
      warned: (junit.match(/warning \(fails under --strict\)/g) ?? []).length,
      skipped: Number(suites?.[3]),
    },
    'report.html counts': {
      failed: chip('failed'),
      passed: chip('passed'),
      warned: chip('warnings'),
      skipped: chip('skipped'),
    },
    'report.html matrix': {
      failed: cells('fail'),
      passed: cells('pass'),
      warned: cells('warn'),
      skipped: cells('skip'),
    },
  };
}

describe('report.html and the report files of a run', () => {
  test('the failing run: every report file counts the failure, and the counts agree', () => {
    assert.equal(failing.verdict, 'fail');
    const counts = countsOf(failing.reportDir!);
    const want = counts['summary.json'];
    assert.ok(want.failed > 0, JSON.stringify(want));
    for (const [file, got] of Object.entries(counts)) {
      assert.ok(got.failed > 0, `${file} counts the failure: ${JSON.stringify(got)}`);
      assert.deepEqual(got, want, `${file} agrees with summary.json`);
    }
    const html = readFileSync(join(failing.reportDir!, REPORT_HTML), 'utf8');
    assert.match(html, /<title>kgate conformance: FAIL/);
    const own = html.replace(/<section id="changes"[\s\S]*?<\/section>/, '');
    assert.ok(!own.includes('PASS'), 'the failing page never says PASS (but of the previous run)');
    for (const gone of ['html', 'results.json', 'playwright-debug'])
      assert.ok(!existsSync(join(failing.reportDir!, gone)), `no ${gone}: Playwright's reports would show a pass`);
    const summary = JSON.parse(readFileSync(join(failing.reportDir!, 'summary.json'), 'utf8')) as RunSummary;
    const operations = summary.targets[0]!.operations!;
    assert.equal(
      operations.reduce((sum, row) => sum + row.requests, 0),
      summary.requests,
      'the requests per operation add up to the requests of the run',
    );
    const evaluate = operations.find((row) => row.operation === OPERATION);
    assert.ok(evaluate && evaluate.p95Ms >= evaluate.p50Ms && evaluate.p50Ms > 0, JSON.stringify(operations));
  });

  test('the clean run: PASS everywhere, zero failures', () => {
    assert.equal(clean.verdict, 'pass');
    const counts = countsOf(clean.reportDir!);
    for (const [file, got] of Object.entries(counts)) assert.deepEqual(got, counts['summary.json'], file);
    assert.equal(counts['summary.json'].failed, 0);
    assert.match(readFileSync(join(clean.reportDir!, REPORT_HTML), 'utf8'), /<title>kgate conformance: PASS/);
  });

  test('no report file, report.html included, holds the key', () => {
    assert.deepEqual(scanForSecrets(join(OUT, 'reports'), [server.keys.full]), []);
  });

  test('in Chromium: the failing page says FAIL, names the check and operation, masks the key; the clean page says PASS', {
    skip: !existsSync(CHROMIUM) && 'no /usr/bin/chromium',
  }, async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      const failingPage = pathToFileURL(join(realpathSync(failing.reportDir!), REPORT_HTML)).href;
      await page.goto(failingPage);
      assert.match((await page.locator('.banner .word').textContent()) ?? '', /^FAIL$/);
      const failed = page.locator('table.grid tbody tr', { hasText: 'response-matches-spec' }).locator('td.fail');
      assert.equal(await failed.count(), 1, 'one failed cell in the response-matches-spec row');
      const column = await failed.evaluate((td) => (td as unknown as { cellIndex: number }).cellIndex);
      const header = await page.locator('table.grid thead th').nth(column).getAttribute('title');
      assert.equal(header, OPERATION, 'in the evaluate GET column');
      const finding = page.locator('#failures article.finding').first();
      assert.match(
        (await finding.locator('h3').textContent()) ?? '',
        /\[response-matches-spec\] GET \/academic\/v1\.0\/evaluate/,
      );
      const curl = (await finding.locator('.curl pre').textContent()) ?? '';
      assert.match(curl, /^curl .*-H 'Ocp-Apim-Subscription-Key: \*\*\*' 'http:\/\/127\.0\.0\.1:\d+\/faults\//);
      assert.ok(!(await page.content()).includes(server.keys.full), 'the key is not on the page');
      await failed.locator('a').click();
      assert.equal(new URL(page.url()).hash, `#${await finding.getAttribute('id')}`, 'the cell links to its failure');
      await finding.locator('button.copy').click();
      await finding.locator('button.copy', { hasText: /Copied|Selected/ }).waitFor({ timeout: 30_000 });
      const changes = (await page.locator('#changes').textContent()) ?? '';
      assert.match(changes, /1 new, 0 fixed/, 'compared with the clean run before it');
      assert.ok(changes.includes('response-matches-spec'), changes);
      await page.evaluate('window.scrollTo(0, 0)');
      const failingShot = join(OUT, 'failing-run.png');
      await page.screenshot({ path: failingShot, fullPage: true });
      await page.emulateMedia({ media: 'print' });
      assert.equal(await finding.locator('button.copy').isVisible(), false, 'no buttons on paper');
      const printShot = join(OUT, 'failing-run-print.png');
      await page.screenshot({ path: printShot, fullPage: true });
      await page.emulateMedia({ media: 'screen' });

      await page.goto(pathToFileURL(join(realpathSync(clean.reportDir!), REPORT_HTML)).href);
      assert.match((await page.locator('.banner .word').textContent()) ?? '', /^PASS$/);
      assert.equal(await page.locator('table.grid td.fail').count(), 0);
      assert.ok((await page.locator('table.grid td.pass').count()) > 0);
      const cleanShot = join(OUT, 'clean-run.png');
      await page.screenshot({ path: cleanShot, fullPage: true });
      assert.deepEqual(
        requests.filter((url) => !url.startsWith('file:')),
        [],
        'the page loads nothing from the network',
      );
      console.log(`screenshots: ${failingShot} ${printShot} ${cleanShot}`);
    } finally {
      await browser.close();
    }
  });
});
