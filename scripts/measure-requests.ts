// Measures the requests each conformance test sends against the embedded reference server (one
// worker, rate-limit tests included) and writes run/request-budget.json, the table
// `kgate conform` announces its request count from. Run: npm run docs:requests
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReferenceServer } from '../reference/index.ts';
import { readConformOptions } from '../run/options.ts';
import { budgetKey, type RequestBudget } from '../run/request-budget.ts';
import { runSuite } from '../run/run.ts';

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
  const result = await runSuite({ baseUrl: server.url, keys, options });
  if (!result.records || result.summary?.verdict !== 'pass') {
    console.error(`measure-requests: the run did not pass on the reference server\n${result.output}`);
    process.exit(1);
  }
  const tests: RequestBudget['tests'] = {};
  for (const record of result.records) {
    tests[budgetKey(record)] = { requests: record.requests?.test ?? 0, data: record.requests?.data ?? [] };
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
}
