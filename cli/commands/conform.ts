import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { readEnv } from '../../config/env.ts';
import { APIS, type ApiName } from '../../config/file.ts';
import { redactSecrets } from '../../config/redact.ts';
import type { Keys } from '../../contracts/api.ts';
import { getCheck } from '../../contracts/checks/index.ts';
import { runPace } from '../../http/pacing.ts';
import { REPORT_HTML } from '../../page/page.ts';
import type { ReferenceServer } from '../../reference/index.ts';
import { BaselineError, readBaseline } from '../../reporting/baseline.ts';
import { specSha256, targetName } from '../../reporting/run-meta.ts';
import { renderTerminalSummary } from '../../reporting/summary.ts';
import { BudgetTooSmall, describePlan, generatedOf, type PricedPlan, planPreamble, planRun } from '../../run/budget.ts';
import { type Ledger, LedgerError, ledgerPlanInput, readLedger, refusedOf } from '../../run/ledger.ts';
import {
  type ConformOptions,
  DEFAULT_GENERATE,
  DEFAULT_REPORT_DIR,
  DEFAULT_SEED,
  DEFAULT_TIMEOUT_MS,
  newScratchDir,
  PLAYWRIGHT_DEBUG_DIR,
  PROGRESS_FILE,
  REFERENCE_UNSUBSCRIBED_GROUPS,
  readConformOptions,
} from '../../run/options.ts';
import { PLAN_FILE, plansCoverage, referenceRefused, revealingItems } from '../../run/plan.ts';
import { quotaShare } from '../../run/quota.ts';
import { defaultMaxDurationMs, describeEstimate, estimateRequests } from '../../run/request-budget.ts';
import { runSuite } from '../../run/run.ts';
import { selectedTests, workersOf } from '../../run/selection.ts';
import { EXIT, formatDuration, noPositionals, parseCommandArgs, UsageError } from '../door/args.ts';
import type { Command } from '../door/command.ts';
import { type Door, type Entered, openDoor } from '../door/door.ts';
import { NETWORK_USAGE } from '../door/network.ts';
import { JSON_USAGE, printJson, verdictWord } from '../door/output.ts';
import { humanDuration, progressDisplay, timeLeft } from '../door/progress.ts';
import { CONFORM_OPTIONS, type ConformGiven, resolveConformSettings } from './conform-settings.ts';

const USAGE = `usage: kgate conform [--base-url URL] [--grep REGEX] [--checks ids] [--exclude-checks ids]
                     [--strict] [--timeout D] [--max-rps R] [--max-rps-by-path PATH=R,...]
                     [--max-duration D] [--max-requests N] [--quota N/month] [--ledger FILE]
                     [--workers N] [--with-rate-limit]
                     [--shard I/N] [--baseline FILE [--update-baseline]] [--generate N] [--seed S]
                     [--report-dir DIR] [--config FILE] [--json]
                     [--playwright-report] [--playwright-reporter list|line|dot]
                     [--proxy URL] [--ca-file FILE] [--client-cert FILE --client-key FILE]

Runs the conformance suite (Playwright, contracts/) against a target and says, check by check,
whether it honours the interface. With nothing naming a target (no --base-url, KGATE_BASE_URL or
baseUrl in the configuration file) it starts the embedded reference server and judges that.

  --base-url         the target: the deployment's base URL, a path prefix allowed (else KGATE_BASE_URL,
                     else baseUrl of the configuration file, else the embedded reference server)
  --grep             only tests whose title matches (operation label or check id)
  --checks           comma-separated check ids to run (see contracts/README.md); a semantic check's
                     property also judges the generated valid requests and every fixed answer
  --exclude-checks   comma-separated check ids to leave out, their properties included
  --strict           warnings (what the interface saw only in samples) fail the gate
  --timeout          per-request deadline, a duration such as 500ms or 20s, from 100ms to 10m (default
                     ${formatDuration(DEFAULT_TIMEOUT_MS)})
  --max-rps          send at most R requests per second, counting every request of the run (all
                     workers, test data discovery, retries); prints the expected request count first
  --max-rps-by-path  at most R requests per second to a path of the spec, GET and POST together, for
                     targets that limit some operations more, e.g.
                     /academic/v1.0/evaluate=1,/academic/v1.0/calchistogram=0.1 (with --max-rps, both hold)
  --max-duration     time limit of the whole run, a duration such as 90s or 20m (default: 10 minutes plus
                     twice the time the announced estimate says the pace needs); when it is reached the
                     run stops sending, reports every unfinished test as 'not run: deadline' (failing the
                     gate), writes its reports and exits 1. Given with a pace, it is also the run's
                     budget: the run plans what fits it at the deployment's limits (see below)
  --max-requests     at most N requests in the whole run (test data, retries, probes and the preflight
                     included), for a key with a quota: the run plans what fits
  --quota            the deployment's request quota, such as 10000/month: the run says how many
                     verdicts of its size the month holds and how many days a full cycle takes at
                     one run per push; with --ledger it sends no more than the month has left
  --ledger           coverage ledger file kept between runs (created when absent): which items each run
                     judged and what that cost; a budgeted run sends first what failed last time, then
                     what was never or longest ago judged, so every item is judged within a cycle of runs
  --workers          Playwright worker processes (default: one for a run announced at 60 requests or
                     fewer, or paced at --max-rps 2 or less; else the number of cores, at least 2)
  --with-rate-limit  run the @rate-limit tests (bursts traffic, unpaced even beside --max-rps and
                     --max-rps-by-path, which pace every other request; on by default for the
                     embedded server)
  --shard            run shard I of N (Playwright --shard), e.g. 1/4; the last shard runs the
                     @rate-limit tests; merge the folders with kgate report merge
  --baseline         known failures (JSON, written by --update-baseline): listed ones are reported as
                     known and pass the gate, unless past their expiry; listed ones that no longer
                     fail are reported as fixed
  --update-baseline  rewrite the --baseline file to accept exactly this run's failures (keeping the
                     reason and expiry of entries that still fail), then judge the run against it
  --generate         draw N generated requests in rounds instead of planning them; without it the run
                     plans its generated requests: every item of the coverage model (kgate coverage)
                     once, packed, or what fits the budget; 0 turns the phase off
  --seed             seed of the generated requests (default ${DEFAULT_SEED}); a finding names its seed
  --report-dir       this run's reports go into DIR itself (made and proven writable before anything is
                     sent; default: a new ${DEFAULT_REPORT_DIR}/<run-id>/, with ${DEFAULT_REPORT_DIR}/latest
                     pointing at it)
  --config           configuration file (default: kgate.config.json, .yaml or .yml in the working
                     directory, if any): baseUrl, keyVariables, unsubscribedKeyCovers, checks,
                     excludeChecks, severity (per check: fail, warn or off), timeoutMs (milliseconds),
                     maxRps, maxRpsByPath, maxDuration (20m, or a number of seconds), maxRequests, quota, ledger,
                     latencyBudgetMs, envelope (bounds on what the run measures, which fail the gate),
                     baseline, strict, proxy, noProxy, caFile, clientCert, clientKey, headers. Flags
                     override it, and so do the KGATE_* variables.
  --json             print one JSON object instead of the report: the summary (summary.json) after
                     "command", "verdict" and "exitCode"; a stop (bad usage, unreachable target) too
${JSON_USAGE}
  --playwright-report  also write Playwright's own HTML and JSON reports into ${PLAYWRIGHT_DEBUG_DIR}/ of the
                     run's folder, for debugging the suite (a failed check shows there as an expected failure)
  --playwright-reporter  also show Playwright's own terminal reporter (list, line or dot) on stderr, for
                     debugging the suite: it names every test and its source file and counts tests, not the
                     verdict's cells, and shows a failed check as passed (expected failure); the verdict is
                     kgate's summary at the end
${NETWORK_USAGE}

keys (environment): KGATE_KEY (subscribed to every API), KGATE_KEY_UNSUBSCRIBED (a valid key
without a subscription to some API), KGATE_KEY_EXHAUSTED (quota used up), or the variables that
keyVariables in the configuration file names. Checks that need a key that was not given are
reported as skipped. KGATE_KEY_UNSUBSCRIBED_COVERS (or unsubscribedKeyCovers in the configuration
file) names the APIs the unsubscribed key is subscribed to (${APIS.join(', ')}, or none):
auth-requires-subscription is then exact.
terminal: a progress line while the suite runs (rewritten in place on a terminal; in CI or a pipe a
line every 10 s on stderr), then kgate's summary: the verdict, its counts of operation x check cells,
the failed cells and every failure with its curl line (a line over 400 characters shows its start and
the file in the report folder's repro/ that holds it whole)
reports: report.html (the page to open: verdict, matrix, failures with curl lines; kgate report finds it),
summary.md, summary.json, junit.xml (one case per operation x check), tests.json, run.json,
envelope.json (what the run measured of the deployment: latency, limits, rate limits, what is in front);
kgate report merge makes one verdict of the folders of --shard runs
budget: with --max-duration and the deployment's limits (--max-rps, --max-rps-by-path), with
--max-requests or with --quota, the run plans what fits, each test or request for what it reveals
for its cost: what failed last time first, then what the ledger never or longest ago judged, then
what caught the most faults of the catalogue; each API group's auth and error cells at least once
every 3 runs. Only a budget too small for one judged answer is refused (exit 2, naming the smallest
that would). The announcement names the ledger and what the run sends first, what it judges, its
requests per key, its time and the runs a full cycle takes; what did not fit is reported as not
judged in this run, never as passed.
before anything is sent: against a deployment, a missing key, an unreachable target or proxy, a
refused TLS connection, a base URL that routes nothing of the interface, a refused key or a used-up
quota is one line and exit 2, within the preflight's few requests (counted in --max-requests).
exit codes: 0 pass (warnings and known failures allowed), 1 a check failed, 2 bad usage, a stop of
the preflight above, a report folder that cannot be written, a budget too small for one judged
answer, a ledger that is damaged or another target's or spec's, or a run that judged nothing; 130 or
143 when stopped by SIGINT or SIGTERM (every process it started is stopped, its folder marked interrupted)`;

/** The operation groups whose API the unsubscribed key does not cover (similarity is part of the academic API). */
export function groupsNotCovered(covers: readonly ApiName[]): string[] {
  const covered = new Set<string>(covers);
  if (covered.has('academic')) covered.add('similarity');
  return ['academic', 'similarity', 'answerSearch', 'urlPreview', 'eventKnowledge'].filter(
    (group) => !covered.has(group),
  );
}

/** Says, beside Playwright's own reports, why they are not the verdict. */
function writePlaywrightDebugNote(reportDir: string): void {
  const dir = join(reportDir, PLAYWRIGHT_DEBUG_DIR);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'README.txt'),
    `Playwright's own reports of this run, written for debugging the suite (kgate conform --playwright-report).
They are NOT the verdict: kgate marks a check that failed as an expected failure, so Playwright shows
it as passed here. The verdict and every failure are in ../${REPORT_HTML}, ../summary.md and ../junit.xml.
`,
  );
}

/** The progress line of a conform run (its scratch folder holds the reporter's count): tests done of total, requests sent, elapsed, estimated time left. */
export function progressLine(scratchDir: string, started: number): string {
  const elapsed = Date.now() - started;
  let done = 0;
  let total = 0;
  let requests = 0;
  try {
    ({ done, total, requests } = JSON.parse(readFileSync(join(scratchDir, PROGRESS_FILE), 'utf8')));
  } catch {
    // Playwright is still starting: no test has ended yet.
  }
  return `kgate conform: ${done}/${total || '?'} tests done, ${requests} requests sent, ${humanDuration(elapsed)} elapsed${timeLeft(elapsed, done, total)}`;
}

/** `kgate conform`: runs the suite against --base-url, KGATE_BASE_URL, or the embedded reference server. */
export const command: Command = {
  usage: USAGE,
  options: CONFORM_OPTIONS,
  async run(argv) {
    const started = Date.now();
    const parsed = parseCommandArgs(argv, CONFORM_OPTIONS, 'conform');
    noPositionals(parsed.positionals, 'conform');
    const given = parsed.options;
    // KGATE_CONFORM_OPTIONS may carry a report folder (the CLI tests use it); --report-dir wins.
    const envReportDir = (JSON.parse(readEnv().conformOptions ?? '{}') as { reportDir?: string }).reportDir;
    const door = openDoor(
      { command: 'conform', kind: 'conformance' },
      { ...parsed, options: { ...given, 'report-dir': given['report-dir'] ?? envReportDir } },
    );
    try {
      return await conform(door, given, started);
    } finally {
      await door.close();
    }
  },
};

/** The run of `kgate conform` once its door is open: the plan, the door entered, the suite, the verdict. */
async function conform(door: Door, given: ConformGiven, started: number): Promise<number> {
  const settings = resolveConformSettings(given, door.env, door.config);
  const grep = given.grep;
  const shard = given.shard;
  const json = door.json;
  const embedded = door.target.url === undefined;
  const limits = door.limits;
  // A request budget: --max-requests, or a quota (whose share of the month the run sends at most).
  const budgeted = limits.maxRequests !== undefined || settings.quota !== undefined;
  if (budgeted && given['with-rate-limit'] === true) {
    const which = limits.maxRequests !== undefined ? '--max-requests' : '--quota';
    throw new UsageError(
      `option --with-rate-limit bursts up to 1000 requests to find the rate limit, which ${which === '--quota' ? '--quota (or quota)' : '--max-requests (or maxRequests)'} would cut short: use one or the other`,
      { option: '--with-rate-limit', rule: `does not go with ${which}` },
    );
  }
  if (settings.baseline !== undefined) {
    // --update-baseline may create the file, in a folder that exists; an existing file must be valid either way.
    const folder = dirname(settings.baseline);
    if (settings.updateBaseline && !existsSync(settings.baseline) && !existsSync(folder))
      throw new UsageError(`option --baseline: no such folder '${folder}' to write the baseline into`, {
        option: '--baseline',
        rule: 'names a file in a folder that exists',
      });
    try {
      if (!settings.updateBaseline || existsSync(settings.baseline)) readBaseline(settings.baseline);
    } catch (error) {
      if (error instanceof BaselineError)
        throw new UsageError(`option --baseline: ${error.message}`, {
          option: '--baseline',
          rule: 'names a baseline file (JSON, written by --update-baseline)',
        });
      throw error;
    }
  }
  const given0 = readConformOptions(undefined, !embedded);
  const options: ConformOptions = {
    ...given0,
    strict: settings.strict,
    timeoutMs: limits.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    workers: given.workers,
    // A paced run never bursts: the rate-limit tests stay off, even on the embedded server.
    rateLimit:
      (embedded && limits.maxRps === undefined && !settings.maxRpsByPath && !budgeted) ||
      given['with-rate-limit'] === true,
    embedded,
    unsubscribedGroups: embedded ? REFERENCE_UNSUBSCRIBED_GROUPS : settings.covers && groupsNotCovered(settings.covers),
    checks: settings.checks,
    excludeChecks: settings.excludeChecks,
    severity: settings.severity,
    maxRps: limits.maxRps,
    maxRpsByPath: settings.maxRpsByPath,
    baselineFile: settings.baseline,
    updateBaseline: settings.updateBaseline,
    // kgate prints the run itself (progress, then its summary): Playwright's process prints nothing.
    quiet: true,
    sweep: undefined,
    generate: given.generate ?? DEFAULT_GENERATE,
    // --generate N draws N generated requests; without it the run plans them.
    draw: given.generate !== undefined,
    seed: given.seed ?? DEFAULT_SEED,
    playwrightReport: given['playwright-report'] === true || given0.playwrightReport,
    network: {
      caFile: door.network.settings.tls?.caFile,
      clientCert: door.network.settings.tls?.certFile,
      clientKey: door.network.settings.tls?.keyFile,
      description: door.network.description,
    },
    grep,
    shard,
    latencyBudgetMs: settings.latencyBudgetMs,
    maxRequests: limits.maxRequests,
    envelopeBounds: settings.envelopeBounds,
  };
  const checks = settings.checks;
  const generativeOnly = (checks ?? []).filter((id) => getCheck(id)?.kind === 'generative');
  if (options.generate === 0 && checks && generativeOnly.length === checks.length) {
    throw new UsageError(
      `option --checks: ${generativeOnly.join(', ')} judge${generativeOnly.length === 1 ? 's' : ''} generated requests, which --generate 0 turns off`,
      { option: '--checks', rule: 'names a check that runs' },
    );
  }
  if (given['playwright-reporter'] !== undefined) options.playwrightReporter = given['playwright-reporter'];
  const shardText = shard ? `${shard.current}/${shard.total}` : undefined;
  const playwrightArgs = [...(grep ? ['--grep', grep] : []), ...(shardText ? ['--shard', shardText] : [])];
  // The plan of the run, priced for the deployment's limits and the budget, before anything is sent:
  // a budget too small for the cells only their own tests judge is refused here.
  const selected = selectedTests(options, grep);
  if (selected.length === 0)
    throw new UsageError(
      `kgate conform: no test is selected${grep ? ` (option --grep '${grep}' matches no test title: an operation label such as 'GET /academic/v1.0/evaluate', or a check id)` : ''}: a run that judges nothing gives no verdict`,
      { option: grep ? '--grep' : '--checks', rule: 'selects at least one test' },
    );
  // The coverage ledger: refused before anything is sent when it is not this target's and spec's.
  let ledger: Ledger | undefined;
  if (settings.ledger !== undefined) {
    if (shard)
      throw new UsageError('option --ledger keeps the items a whole run judged: it does not go with --shard', {
        option: '--ledger',
        rule: 'does not go with --shard',
      });
    if (!existsSync(dirname(settings.ledger)))
      throw new UsageError(`option --ledger: no such folder '${dirname(settings.ledger)}' to keep the ledger in`, {
        option: '--ledger',
        rule: 'a file in a folder that exists',
      });
    try {
      ledger = readLedger(settings.ledger, targetName(door.target.url, embedded), specSha256());
    } catch (error) {
      if (error instanceof LedgerError)
        throw new UsageError(`kgate conform: ${error.message}`, {
          option: '--ledger',
          file: settings.ledger,
          rule: error.rule,
        });
      throw error;
    }
    options.ledgerFile = settings.ledger;
  }
  // The plan and the estimate count only the keys given: a check needing another sends nothing.
  const keysGiven = {
    unsubscribed: embedded || door.keys.unsubscribed !== undefined,
    exhausted: embedded || door.keys.exhausted !== undefined,
  };
  // A quota: the run's share is what the month has left (by the ledger's runs), at most --max-requests.
  const quota = settings.quota && quotaShare(settings.quota, limits.maxRequests, ledger, new Date(started));
  if (quota) options.maxRequests = quota.maxRequests;
  let plan: PricedPlan | undefined;
  if (plansCoverage(options)) {
    try {
      plan = planRun({
        selected,
        limits: {
          maxRps: options.maxRps,
          maxRpsByPath: options.maxRpsByPath,
          maxDurationMs: limits.maxDurationMs,
          maxRequests: options.maxRequests,
        },
        seed: options.seed,
        refused: new Set([...referenceRefused(), ...(ledger ? refusedOf(ledger) : [])]),
        revealing: revealingItems(),
        keys: keysGiven,
        ...(ledger ? ledgerPlanInput(ledger, settings.ledger!) : {}),
        ...(quota ? { quota } : {}),
      });
    } catch (error) {
      if (error instanceof BudgetTooSmall)
        throw new UsageError(`kgate conform: ${error.message}`, {
          option: quota ? '--quota' : limits.maxRequests !== undefined ? '--max-requests' : '--max-duration',
          rule: 'holds one judged answer',
        });
      throw error;
    }
  }
  const say = (line: string) => door.say(line);

  // The preflight is paced (and counted against --max-requests) too; its pace moves into the run's
  // scratch folder once that exists.
  const pace = runPace(
    join(tmpdir(), `kgate-preflight-${process.pid}-${Date.now()}`),
    options.maxRps,
    options.maxRpsByPath,
    options.maxRequests,
  );
  let server: ReferenceServer | undefined;
  let target: Entered;
  try {
    target = await door.enter({
      pace,
      embedded: async () => {
        // Loaded only here: a run against a deployment does not load the reference server.
        const { startReferenceServer } = await import('../../reference/index.ts');
        // Its corpora are built once Playwright's runner is started (onSpawn below), while it loads:
        // Playwright takes longer to send a first request than they take to build.
        server = await startReferenceServer({ quiet: true, buildAfterListening: true });
        const own = server;
        return {
          baseUrl: own.url,
          keys: { full: own.keys.full, unsubscribed: own.keys.academicOnly, exhausted: own.keys.exhausted },
          close: () => own.close(),
        };
      },
    });
  } catch (error) {
    pace?.remove();
    throw error;
  }
  const keys: Keys = target.keys;
  options.reportDir = door.reportDir!;
  // What the run needs only while it runs (the pace, the progress, shared test data) lives
  // outside the report folder, in a folder of the OS's temp folder named for the run.
  const scratchDir = newScratchDir(options.reportDir);
  options.scratchDir = scratchDir;
  door.onStop(() => rmSync(scratchDir, { recursive: true, force: true }));
  pace?.continueIn(scratchDir);
  // The workers follow the run's size and pace; a run small enough for one worker is one with one.
  // Generated requests of only some intents (--checks, --exclude-checks): what the plan sends of them.
  const generated = plansCoverage(options) ? generatedOf(selected, options.seed, referenceRefused()) : undefined;
  const estimateWith = (workers: number) =>
    estimateRequests(selected, workers, undefined, options.generate, options.draw === true, keysGiven, generated);
  options.workers = workersOf(options, plan?.budgeted ? plan.estimate.requests : estimateWith(1).total.typical);
  const workers = options.workers;
  const estimate = estimateWith(workers);
  options.maxDurationMs = limits.maxDurationMs ?? defaultMaxDurationMs(estimate, options.maxRps, options.maxRpsByPath);
  options.deadlineAt = started + options.maxDurationMs;
  if (plan) {
    options.planFile = join(resolve(options.reportDir), PLAN_FILE);
    mkdirSync(dirname(options.planFile), { recursive: true });
    writeFileSync(options.planFile, `${JSON.stringify(plan, null, 1)}\n`);
  }
  for (const line of plan ? planPreamble(plan) : []) say(line);
  say(
    plan?.budgeted
      ? `${describePlan(plan, options, limits.maxDurationMs)}; time limit ${humanDuration(options.maxDurationMs)}`
      : `${describeEstimate(estimate, options.maxRps, options.maxRpsByPath)}${shard ? ` (this shard runs about 1/${shard.total} of it)` : ''}; time limit ${humanDuration(options.maxDurationMs)}${limits.maxDurationMs === undefined ? ' (default; --max-duration sets it)' : ''}`,
  );
  // Playwright's own reporter writes to the terminal too: no live line to fight with it.
  const stopProgress = progressDisplay(() => progressLine(scratchDir, started), {
    ...(options.playwrightReporter ? { interactive: false } : {}),
  });
  try {
    const proxies = door.network.settings.proxy;
    const running = runSuite({
      baseUrl: target.baseUrl,
      keys,
      options,
      playwrightArgs,
      proxies: proxies && { https: proxies.https?.href, http: proxies.http?.href, noProxy: proxies.noProxy },
      headers: door.network.headers,
      // A signal stops Playwright's runner and its workers, every process of its group.
      signal: door.abort.signal,
      onSpawn: () => {
        // Reading `ready` starts the build; a failed build fails the requests that wait for it.
        server?.ready.catch(() => {});
      },
    });
    door.onStop(() =>
      running.then(
        () => undefined,
        () => undefined,
      ),
    );
    const result = await running;
    stopProgress();
    const summary = result.summary;
    if (!summary) {
      console.error(
        redactSecrets(
          `kgate conform: the suite did not produce a summary (Playwright exit ${result.playwrightExitCode})\n${result.output}`,
        ),
      );
      return EXIT.failed;
    }
    if (options.playwrightReport) writePlaywrightDebugNote(options.reportDir);
    if (json) printJson('conform', summary.exitCode, summary);
    else {
      console.log(redactSecrets(`\n${renderTerminalSummary(summary)}\n`));
      console.log(
        `kgate conform: ${verdictWord(summary.verdict)}; open ${join(options.reportDir, REPORT_HTML)} (also summary.md, summary.json, junit.xml${options.playwrightReport ? `, ${PLAYWRIGHT_DEBUG_DIR}/` : ''})`,
      );
    }
    const update = summary.targets[0]?.baseline?.update;
    if (update)
      say(
        `kgate conform: baseline ${options.baselineFile} written: ${update.added} failure(s) added, ${update.dropped} fixed entry(ies) dropped; write each added entry's reason before committing it`,
      );
    return summary.exitCode;
  } finally {
    stopProgress();
    rmSync(scratchDir, { recursive: true, force: true });
  }
}
