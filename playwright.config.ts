import { availableParallelism } from 'node:os';
import { defineConfig } from '@playwright/test';
import { readEnv } from './config/env.ts';
import { MODULE_EXT } from './config/runtime.ts';
import { DEFAULT_REPORT_DIR, PLAYWRIGHT_DEBUG_DIR, readConformOptions } from './contracts/options.ts';
import { testTimeoutMs } from './contracts/request-budget.ts';
import { createRunDir } from './contracts/run-dir.ts';
import { suiteProjects } from './contracts/selection.ts';

// The conformance suite. `kgate conform` sets KGATE_CONFORM_OPTIONS; a plain `npx playwright test`
// gets the defaults (the embedded reference server, rate-limit tests on).
const env = readEnv();
if (!JSON.parse(env.conformOptions ?? '{}').reportDir) {
  // A plain `npx playwright test` gets its own run folder too; workers inherit it through the environment.
  const given = JSON.parse(env.conformOptions ?? '{}') as Record<string, unknown>;
  process.env.KGATE_CONFORM_OPTIONS = JSON.stringify({ ...given, reportDir: createRunDir(DEFAULT_REPORT_DIR) });
}
const options = readConformOptions();
const reportDir = options.reportDir;
const workers = options.workers ?? Math.max(2, availableParallelism());

export default defineConfig({
  testDir: './contracts',
  fullyParallel: true,
  workers,
  retries: 0,
  // Under --max-rps a test waits for its requests' slots: its time limit grows with the pace.
  timeout: testTimeoutMs(options, workers),
  forbidOnly: env.ci,
  // The workers stop sending at --max-duration; this only catches a test that does not notice.
  ...(options.deadlineAt ? { globalTimeout: Math.max(options.deadlineAt - Date.now(), 1_000) + 30_000 } : {}),
  globalSetup: `./contracts/global-setup${MODULE_EXT}`,
  outputDir: `${reportDir}/test-results`,
  // Requests go through the suite's own client (http/client.ts), never the browser or
  // Playwright's request context, and traces stay off: no header, and so no key, is recorded.
  use: { trace: 'off', screenshot: 'off', video: 'off' },
  reporter: [
    options.quiet ? ['null'] : env.ci ? ['dot'] : ['line'],
    // Playwright's own reports show a failed check as an expected failure (see runCheck), so they
    // would show a failing run as passed: written only on request, in a folder named for debugging.
    ...(options.playwrightReport
      ? ([
          ['html', { outputFolder: `${reportDir}/${PLAYWRIGHT_DEBUG_DIR}/html`, open: 'never' }],
          ['json', { outputFile: `${reportDir}/${PLAYWRIGHT_DEBUG_DIR}/results.json` }],
        ] as const)
      : []),
    [`./contracts/reporter${MODULE_EXT}`],
  ],
  projects: suiteProjects(options),
});
