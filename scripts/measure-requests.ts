// Measures the requests each conformance test sends against the embedded reference server (one
// worker, rate-limit tests included) and writes run/request-budget.json, the table
// `kgate conform` announces its request count from. Run: npm run docs:requests
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReferenceServer } from '../reference/index.ts';
import type { TestRecord } from '../reporting/summary.ts';
import { readConformOptions } from '../run/options.ts';
import { budgetKey, type RequestBudget } from '../run/request-budget.ts';
import { runSuite } from '../run/run.ts';

/** A test's requests by path, when some went to another path than its own operation's (discovery's not counted). */
function pathsOf(record: TestRecord): { paths?: Record<string, number> } {
  const byOperation = record.requests?.byOperation;
  if (!byOperation) return {};
  const own = record.operation.slice(record.operation.indexOf(' ') + 1);
  const paths: Record<string, number> = {};
  for (const [label, count] of Object.entries(byOperation)) {
    const path = label.slice(label.indexOf(' ') + 1);
    paths[path] = (paths[path] ?? 0) + count;
  }
  return Object.keys(paths).some((path) => path !== own) ? { paths } : {};
}

const target = fileURLToPath(new URL('../run/request-budget.json', import.meta.url));
const reportDir = mkdtempSync(join(tmpdir(), 'kgate-requests-'));
const server = await startReferenceServer({ quiet: true });
try {
  const options = {
    ...readConformOptions('{}', true),
    embedded: true,
    rateLimit: true,
    workers: 1,
    quiet: true,
    reportDir,
  };
  const keys = { full: server.keys.full, unsubscribed: server.keys.academicOnly, exhausted: server.keys.exhausted };
  // The planned run (the default), then one without generated requests: what each fixed test sends
  // when no generated answer judged its cell first.
  const result = await runSuite({ baseUrl: server.url, keys, options });
  const alone = await runSuite({
    baseUrl: server.url,
    keys,
    options: { ...options, generate: 0, reportDir: `${reportDir}-alone` },
  });
  for (const run of [result, alone]) {
    if (!run.records || run.summary?.verdict !== 'pass') {
      console.error(`measure-requests: the run did not pass on the reference server\n${run.output}`);
      process.exit(1);
    }
  }
  const fixed = new Map(alone.records!.map((record) => [budgetKey(record), record.requests?.test ?? 0]));
  const fixedData = new Map(alone.records!.map((record) => [budgetKey(record), record.requests?.data ?? []]));
  const tests: RequestBudget['tests'] = {};
  for (const record of result.records!) {
    const requests = record.requests?.test ?? 0;
    const full = fixed.get(budgetKey(record));
    tests[budgetKey(record)] = {
      requests,
      data: record.requests?.data ?? [],
      ...(record.items?.length ? { items: record.items } : {}),
      ...(record.refused?.length ? { refused: record.refused } : {}),
      ...(record.judgedBy ? { judgedBy: record.judgedBy } : {}),
      ...pathsOf(record),
      ...(full !== undefined && full !== requests ? { alone: full } : {}),
      ...(full !== undefined &&
      full !== requests &&
      fixedData.get(budgetKey(record))?.join() !== record.requests?.data.join()
        ? { aloneData: fixedData.get(budgetKey(record)) }
        : {}),
    };
  }
  const budget: RequestBudget = {
    measured:
      'kgate conform against the embedded reference server, one worker, rate-limit tests included (npm run docs:requests)',
    tests: Object.fromEntries(Object.entries(tests).sort(([a], [b]) => a.localeCompare(b))),
  };
  // One test per line: a change of the suite shows as a readable diff.
  const lines = Object.entries(budget.tests).map(
    ([key, test]) => `    ${JSON.stringify(key)}: ${JSON.stringify(test)}`,
  );
  writeFileSync(
    target,
    `{\n  "measured": ${JSON.stringify(budget.measured)},\n  "tests": {\n${lines.join(',\n')}\n  }\n}\n`,
  );
  const total = Object.values(tests).reduce((sum, test) => sum + test.requests, 0);
  console.log(`measure-requests: ${Object.keys(tests).length} tests, ${total} requests: ${target}`);
} finally {
  await server.close();
  rmSync(reportDir, { recursive: true, force: true });
  rmSync(`${reportDir}-alone`, { recursive: true, force: true });
}
