import { availableParallelism } from 'node:os';
import { defineConfig, type Project } from '@playwright/test';
import { readEnv } from './config/env.ts';
import { MODULE_EXT } from './config/runtime.ts';
import { testsExercising } from './contracts/checks/index.ts';
import { DEFAULT_REPORT_DIR, readConformOptions } from './contracts/options.ts';
import { createRunDir } from './contracts/run-dir.ts';

// The conformance suite. `kgate conform` sets KGATE_CONFORM_OPTIONS; a plain `npx playwright test`
// gets the defaults (the embedded reference server, rate-limit tests on).
const env = readEnv();
if (!JSON.parse(env.conformOptions ?? '{}').reportDir) {
  // A plain `npx playwright test` gets its own run folder too; workers inherit it through the environment.
  const given = JSON.parse(env.conformOptions ?? '{}') as Record<string, unknown>;
  process.env.KGATE_CONFORM_OPTIONS = JSON.stringify({ ...given, reportDir: createRunDir(DEFAULT_REPORT_DIR) });
}
const options = readConformOptions();
const RATE_LIMIT = /@rate-limit/;
const NOT_RATE_LIMIT = /^(?![\s\S]*@rate-limit)/;

/** Selects the tests of the given check ids (test titles are check ids). */
function checksGrep(ids: string[] | undefined): RegExp | undefined {
  return ids ? new RegExp(`(?:^|\\s)(?:${ids.join('|')})(?:\\s|$)`) : undefined;
}

function projects(): Project[] {
  if (options.sweep) return [{ name: 'sweep', testMatch: `fault-sweep.spec${MODULE_EXT}` }];
  const grep = checksGrep(options.checks && testsExercising(options.checks));
  const exclude = options.excludeChecks?.length ? checksGrep(options.excludeChecks) : undefined;
  // The rate-limit tests burst traffic: they run as a teardown project, after every other test.
  return [
    {
      name: 'conformance',
      testMatch: `operations.spec${MODULE_EXT}`,
      grep,
      grepInvert: exclude ? [RATE_LIMIT, exclude] : RATE_LIMIT,
      teardown: options.rateLimit ? 'rate-limit' : undefined,
    },
    ...(options.rateLimit
      ? [
          {
            name: 'rate-limit',
            testMatch: `operations.spec${MODULE_EXT}`,
            grep: grep ?? RATE_LIMIT,
            grepInvert: exclude ? [NOT_RATE_LIMIT, exclude] : NOT_RATE_LIMIT,
          },
        ]
      : []),
  ];
}

const reportDir = options.reportDir;

export default defineConfig({
  testDir: './contracts',
  fullyParallel: true,
  workers: options.workers ?? Math.max(2, availableParallelism()),
  retries: 0,
  timeout: 60_000,
  forbidOnly: env.ci,
  globalSetup: `./contracts/global-setup${MODULE_EXT}`,
  outputDir: `${reportDir}/test-results`,
  // Requests go through the suite's own client (contracts/http.ts), never the browser or
  // Playwright's request context, and traces stay off: no header, and so no key, is recorded.
  use: { trace: 'off', screenshot: 'off', video: 'off' },
  reporter: [
    options.quiet ? ['null'] : env.ci ? ['dot'] : ['line'],
    ['html', { outputFolder: `${reportDir}/html`, open: 'never' }],
    ['json', { outputFile: `${reportDir}/results.json` }],
    [`./contracts/reporter${MODULE_EXT}`],
  ],
  projects: projects(),
});
