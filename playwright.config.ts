import { defineConfig } from '@playwright/test';
import { readEnv } from './config/env.ts';
import { MODULE_EXT } from './config/runtime.ts';
import { createRunDir } from './reporting/run-dir.ts';
import {
  DEFAULT_REPORT_DIR,
  newScratchDir,
  PLAYWRIGHT_DEBUG_DIR,
  readConformOptions,
  scratchOf,
} from './run/options.ts';

// The conformance suite. `kgate conform` sets KGATE_CONFORM_OPTIONS; a plain `npx playwright test`
// gets the defaults (the embedded reference server, rate-limit tests on).
const env = readEnv();
if (!JSON.parse(env.conformOptions ?? '{}').reportDir) {
  // A plain `npx playwright test` gets its own run folder too; workers inherit it through the environment.
  const given = JSON.parse(env.conformOptions ?? '{}') as Record<string, unknown>;
  const reportDir = createRunDir(DEFAULT_REPORT_DIR);
  // Its scratch goes beside it in the OS temp folder; the reporter removes it at the end.
  process.env.KGATE_CONFORM_OPTIONS = JSON.stringify({ ...given, reportDir, scratchDir: newScratchDir(reportDir) });
}
const options = readConformOptions();
const reportDir = options.reportDir;
// `kgate conform` hands over the plan (projects, workers, time limit), so that this file, which the
// runner and every worker load, loads none of the suite: the suite's modules then load after the
// `build` setting below applies. A plain `npx playwright test` works it out here.
// (The module's name is in a variable: the package build would otherwise bundle it in here.)
const selection = `./run/selection${MODULE_EXT}`;
const plan = options.plan ?? ((await import(selection)) as typeof import('./run/selection.ts')).playwrightPlan(options);
const regexps = (sources: string[] | undefined) => sources?.map((source) => new RegExp(source));

export default defineConfig({
  testDir: './run',
  fullyParallel: true,
  workers: plan.workers,
  retries: 0,
  // Under --max-rps a test waits for its requests' slots: its time limit grows with the pace.
  timeout: plan.timeoutMs,
  forbidOnly: env.ci,
  // The workers stop sending at --max-duration; this only catches a test that does not notice.
  ...(options.deadlineAt ? { globalTimeout: Math.max(options.deadlineAt - Date.now(), 1_000) + 30_000 } : {}),
  globalSetup: `./run/global-setup${MODULE_EXT}`,
  // The validators compiled from the spec are JavaScript already: loaded as they are, not transpiled
  // (half a megabyte, which Babel took seconds over on a first run).
  build: { external: ['**/openapi/generated/**'] },
  // Playwright's own output folder (its last-run file) is scratch: not in the report folder.
  outputDir: `${scratchOf(options)}/test-results`,
  // Requests go through the suite's own client (http/client.ts), never the browser or
  // Playwright's request context, and traces stay off: no header, and so no key, is recorded.
  use: { trace: 'off', screenshot: 'off', video: 'off' },
  // kgate's reporter prints (and says so), so Playwright adds none of its own: a line per test naming
  // internal files, and counts of tests where the verdict counts cells, would contradict the verdict.
  // --playwright-reporter shows one of Playwright's own, for debugging the suite.
  reporter: [
    ...(options.playwrightReporter ? [[options.playwrightReporter] as const] : []),
    // Playwright's own reports show a failed check as an expected failure (see runCheck), so they
    // would show a failing run as passed: written only on request, in a folder named for debugging.
    ...(options.playwrightReport
      ? ([
          ['html', { outputFolder: `${reportDir}/${PLAYWRIGHT_DEBUG_DIR}/html`, open: 'never' }],
          ['json', { outputFile: `${reportDir}/${PLAYWRIGHT_DEBUG_DIR}/results.json` }],
        ] as const)
      : []),
    [`./run/reporter${MODULE_EXT}`],
  ],
  projects: plan.projects.map((project) => ({
    ...project,
    grep: regexps(project.grep),
    grepInvert: regexps(project.grepInvert),
  })),
});
