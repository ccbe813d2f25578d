import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { readEnv } from '../../config/env.ts';
import { APIS, type ApiName, ConfigError, loadConfig } from '../../config/file.ts';
import { redactSecrets, registerSecret } from '../../config/redact.ts';
import type { Keys } from '../../contracts/api.ts';
import { getCheck } from '../../contracts/checks/index.ts';
import { checkReachable, preflight } from '../../contracts/preflight.ts';
import { runPace } from '../../http/pacing.ts';
import { REPORT_HTML } from '../../page/page.ts';
import type { ReferenceServer } from '../../reference/index.ts';
import { BaselineError, readBaseline } from '../../reporting/baseline.ts';
import { createRunDir } from '../../reporting/run-dir.ts';
import { specSha256, targetName } from '../../reporting/run-meta.ts';
import { renderTerminalSummary } from '../../reporting/summary.ts';
import { BudgetTooSmall, describePlan, type PricedPlan, planRun } from '../../run/budget.ts';
import { historyOf, type Ledger, LedgerError, readLedger, refusedOf } from '../../run/ledger.ts';
import {
  type ConformOptions,
  DEFAULT_GENERATE,
  DEFAULT_REPORT_DIR,
  DEFAULT_SEED,
  DEFAULT_TIMEOUT_MS,
  PLAYWRIGHT_DEBUG_DIR,
  PLAYWRIGHT_REPORTERS,
  type PlaywrightReporter,
  PROGRESS_FILE,
  REFERENCE_UNSUBSCRIBED_GROUPS,
  readConformOptions,
} from '../../run/options.ts';
import { PLAN_FILE, plansCoverage, referenceRefused, revealingItems } from '../../run/plan.ts';
import { defaultMaxDurationMs, describeEstimate, estimateRequests } from '../../run/request-budget.ts';
import { runSuite } from '../../run/run.ts';
import { selectedTests, workersOf } from '../../run/selection.ts';
import { EXIT, intOption, noPositionals, parseCommandArgs, stringOption, UsageError } from '../args.ts';
import type { Command } from '../command.ts';
import { CONFORM_OPTIONS, resolveConformSettings } from '../conform-settings.ts';
import { applyNetwork, embeddedNetwork, NETWORK_USAGE, resolveNetwork } from '../network.ts';
import { humanDuration, progressDisplay, timeLeft } from '../progress.ts';

const USAGE = `usage: kgate conform [--base-url URL] [--grep REGEX] [--checks ids] [--exclude-checks ids]
                     [--strict] [--timeout MS] [--max-rps R] [--max-rps-by-path PATH=R,...]
                     [--max-duration D] [--max-requests N] [--ledger FILE]
                     [--workers N] [--with-rate-limit]
                     [--shard I/N] [--baseline FILE [--update-baseline]] [--generate N] [--seed S]
                     [--report-dir DIR] [--config FILE] [--json]
                     [--playwright-report] [--playwright-reporter list|line|dot]
                     [--proxy URL] [--ca-file FILE] [--client-cert FILE --client-key FILE]

Runs the conformance suite (Playwright, contracts/) against a target and says, check by check,
whether it honours the interface. With no --base-url, no KGATE_BASE_URL and no baseUrl in the
configuration file it starts the embedded reference server and judges that.

  --base-url         target base URL, may carry a path prefix (env KGATE_BASE_URL)
  --grep             only tests whose title matches (operation label or check id)
  --checks           comma-separated check ids to run (see contracts/README.md); a semantic check's
                     property also judges the generated valid requests and every fixed answer
  --exclude-checks   comma-separated check ids to leave out, their properties included
  --strict           warnings (what the interface saw only in samples) fail the gate
  --timeout          per-request deadline in milliseconds (default ${DEFAULT_TIMEOUT_MS})
  --max-rps          send at most R requests per second, counting every request of the run (all
                     workers, test data discovery, retries); prints the expected request count first
  --max-rps-by-path  at most R requests per second to a path of the spec, GET and POST together, for
                     targets that limit some operations more, e.g.
                     /academic/v1.0/evaluate=1,/academic/v1.0/calchistogram=0.1 (with --max-rps, both hold)
  --max-duration     time limit of the whole run, such as 20m or 900s (default: 10 minutes plus twice
                     the time the announced estimate says the pace needs); when it is reached the run
                     stops sending, reports every unfinished test as 'not run: deadline' (failing the
                     gate), writes its reports and exits 1. Given with a pace, it is also the run's
                     budget: the run plans what fits it at the deployment's limits (see below)
  --max-requests     at most N requests in the whole run (test data, retries, probes and the key
                     preflight included), for a key with a quota: the run plans what fits
  --ledger           coverage ledger file kept between runs (created when absent): which items each run
                     judged; a budgeted run sends first what failed last time, then what was judged
                     longest ago, so a gate on every push judges every item within a window of runs
  --workers          Playwright worker processes (default: one for a run announced at 60 requests or
                     fewer, or paced at --max-rps 2 or less; else the number of cores, at least 2)
  --with-rate-limit  run the @rate-limit tests (bursts traffic; on by default for the embedded server)
  --shard            run shard I of N (Playwright --shard), e.g. 1/4; the last shard runs the
                     @rate-limit tests; merge the folders with kgate report merge
  --baseline         known failures (JSON, written by --update-baseline): listed ones are reported as
                     known and pass the gate, unless past their expiry; listed ones that no longer
                     fail are reported as fixed
  --update-baseline  rewrite the --baseline file to accept exactly this run's failures (keeping the
                     reason and expiry of entries that still fail), then judge the run against it
  --generate         draw N generated requests in rounds, as kgate did before it planned coverage;
                     without it the run plans its generated requests: every item of the coverage model
                     (kgate coverage) once, packed, or what fits the budget; 0 turns the phase off
  --seed             seed of the generated requests (default ${DEFAULT_SEED}); a finding names its seed
  --report-dir       write this run's reports to DIR (default: a new ${DEFAULT_REPORT_DIR}/<run-id>/,
                     with ${DEFAULT_REPORT_DIR}/latest pointing at it)
  --config           configuration file (default: kgate.config.json, .yaml or .yml in the working
                     directory, if any): baseUrl, keyVariables, unsubscribedKeyCovers, checks,
                     excludeChecks, severity (per check: fail, warn or off), timeoutMs, maxRps,
                     maxRpsByPath, maxDuration, maxRequests, ledger, latencyBudgetMs, baseline,
                     strict, proxy, noProxy,
                     caFile, clientCert, clientKey. Flags override it, and so do the KGATE_* variables.
  --json             print one JSON result object instead of the report
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
summary.md, summary.json, junit.xml (one case per operation x check), tests.json, run.json;
kgate report merge makes one verdict of the folders of --shard runs
budget: with --max-duration and the deployment's limits (--max-rps, --max-rps-by-path) or with
--max-requests, the run plans what fits: the cells only their own tests judge first (a budget that
cannot hold them is refused, exit 2, naming the smallest that would), then the other cells, then the
input items the ledger or the fault catalogue ranks first; the slowest path's operation starts first.
The announcement says what the run judges, its requests per key and its time; what did not fit is
reported as not judged in this run, never as passed.
exit codes: 0 pass (warnings and known failures allowed), 1 a check failed, 2 bad usage or
unreachable target (or proxy), a refused proxy or TLS connection, a front server refusing every
request, a budget too small, or a ledger that is damaged or another target's or spec's`;

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

/** The progress line of a conform run: tests done of total, requests sent, elapsed, estimated time left. */
export function progressLine(reportDir: string, started: number): string {
  const elapsed = Date.now() - started;
  let done = 0;
  let total = 0;
  let requests = 0;
  try {
    ({ done, total, requests } = JSON.parse(readFileSync(join(reportDir, PROGRESS_FILE), 'utf8')));
  } catch {
    // Playwright is still starting: no test has ended yet.
  }
  return `kgate conform: ${done}/${total || '?'} tests done, ${requests} requests sent, ${humanDuration(elapsed)} elapsed${timeLeft(elapsed, done, total)}`;
}

/** Validates a Playwright shard `I/N`. */
export function parseShard(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const match = /^(\d+)\/(\d+)$/.exec(raw.trim());
  if (!match || Number(match[1]) < 1 || Number(match[1]) > Number(match[2])) {
    throw new UsageError(`option --shard takes I/N with 1 <= I <= N, such as 1/4, got '${raw}'`);
  }
  return `${match[1]}/${match[2]}`;
}

/** `kgate conform`: runs the suite against --base-url, KGATE_BASE_URL, or the embedded reference server. */
export const command: Command = {
  usage: USAGE,
  async run(argv) {
    const started = Date.now();
    const { values, positionals } = parseCommandArgs(argv, CONFORM_OPTIONS, 'conform');
    noPositionals(positionals, 'conform');
    const env = readEnv();
    let config: ReturnType<typeof loadConfig>;
    try {
      config = loadConfig(stringOption(values, 'config'));
    } catch (error) {
      if (error instanceof ConfigError) throw new UsageError(`kgate conform: ${error.message}`);
      throw error;
    }
    const settings = resolveConformSettings(values, env, config);
    const configured = resolveNetwork(values, env, config);
    const grep = stringOption(values, 'grep');
    if (grep !== undefined) {
      try {
        new RegExp(grep);
      } catch {
        throw new UsageError(`option --grep takes a regular expression, got '${grep}'`);
      }
    }
    const shard = parseShard(stringOption(values, 'shard'));
    const json = values.json === true;
    const embedded = settings.baseUrl === undefined;
    const reportDirOption = stringOption(values, 'report-dir');
    if (reportDirOption !== undefined && reportDirOption.trim() === '')
      throw new UsageError('option --report-dir takes a folder path, got an empty string');
    if ((settings.maxRps !== undefined || settings.maxRpsByPath) && values['with-rate-limit'] === true)
      throw new UsageError(
        'option --with-rate-limit bursts up to 1000 requests to find the rate limit, which --max-rps and --max-rps-by-path (or maxRps and maxRpsByPath) forbid: use one or the other',
      );
    if (settings.maxRequests !== undefined && values['with-rate-limit'] === true)
      throw new UsageError(
        'option --with-rate-limit bursts up to 1000 requests to find the rate limit, which --max-requests (or maxRequests) would cut short: use one or the other',
      );
    if (settings.baseline !== undefined) {
      // --update-baseline may create the file, in a folder that exists; an existing file must be valid either way.
      const folder = dirname(settings.baseline);
      if (settings.updateBaseline && !existsSync(settings.baseline) && !existsSync(folder))
        throw new UsageError(`option --baseline: no such folder '${folder}' to write the baseline into`);
      try {
        if (!settings.updateBaseline || existsSync(settings.baseline)) readBaseline(settings.baseline);
      } catch (error) {
        if (error instanceof BaselineError) throw new UsageError(`option --baseline: ${error.message}`);
        throw error;
      }
    }
    const given = readConformOptions(undefined, !embedded);
    // KGATE_CONFORM_OPTIONS may carry a report folder (the CLI tests use it); --report-dir wins.
    const reportDir = reportDirOption ?? (JSON.parse(env.conformOptions ?? '{}') as { reportDir?: string }).reportDir;
    const options: ConformOptions = {
      ...given,
      strict: settings.strict,
      timeoutMs: settings.timeoutMs,
      workers: intOption(values, 'workers', { min: 1, max: 64 }),
      // A paced run never bursts: the rate-limit tests stay off, even on the embedded server.
      rateLimit:
        (embedded && settings.maxRps === undefined && !settings.maxRpsByPath && settings.maxRequests === undefined) ||
        values['with-rate-limit'] === true,
      embedded,
      unsubscribedGroups: embedded
        ? REFERENCE_UNSUBSCRIBED_GROUPS
        : settings.covers && groupsNotCovered(settings.covers),
      checks: settings.checks,
      excludeChecks: settings.excludeChecks,
      severity: settings.severity,
      maxRps: settings.maxRps,
      maxRpsByPath: settings.maxRpsByPath,
      baselineFile: settings.baseline,
      updateBaseline: settings.updateBaseline,
      // kgate prints the run itself (progress, then its summary): Playwright's process prints nothing.
      quiet: true,
      sweep: undefined,
      generate: intOption(values, 'generate', { min: 0, max: 100_000 }, DEFAULT_GENERATE)!,
      // --generate N draws N generated requests, as kgate did before it planned coverage; without it the run plans them.
      draw: values.generate !== undefined,
      seed: intOption(values, 'seed', { min: 0, max: 2 ** 32 - 1 }, DEFAULT_SEED)!,
      playwrightReport: values['playwright-report'] === true || given.playwrightReport,
      network: {
        caFile: configured.settings.tls?.caFile,
        clientCert: configured.settings.tls?.certFile,
        clientKey: configured.settings.tls?.keyFile,
      },
      grep,
      shard: shard ? { current: Number(shard.split('/')[0]), total: Number(shard.split('/')[1]) } : undefined,
      latencyBudgetMs: settings.latencyBudgetMs,
      maxRequests: settings.maxRequests,
    };
    const checks = settings.checks;
    const generativeOnly = (checks ?? []).filter((id) => getCheck(id)?.kind === 'generative');
    if (options.generate === 0 && checks && generativeOnly.length === checks.length) {
      throw new UsageError(
        `option --checks: ${generativeOnly.join(', ')} judge${generativeOnly.length === 1 ? 's' : ''} generated requests, which --generate 0 turns off`,
      );
    }
    const reporterName = stringOption(values, 'playwright-reporter');
    if (reporterName !== undefined && !(PLAYWRIGHT_REPORTERS as readonly string[]).includes(reporterName))
      throw new UsageError(
        `option --playwright-reporter takes one of ${PLAYWRIGHT_REPORTERS.join(', ')}, got '${reporterName}'`,
      );
    if (reporterName !== undefined) options.playwrightReporter = reporterName as PlaywrightReporter;
    const playwrightArgs = [...(grep ? ['--grep', grep] : []), ...(shard ? ['--shard', shard] : [])];
    // The plan of the run, priced for the deployment's limits and the budget, before anything is sent:
    // a budget too small for the cells only their own tests judge is refused here.
    const selected = selectedTests(options, grep);
    // The coverage ledger: refused before anything is sent when it is not this target's and spec's.
    let ledger: Ledger | undefined;
    if (settings.ledger !== undefined) {
      if (shard)
        throw new UsageError('option --ledger keeps the items a whole run judged: it does not go with --shard');
      if (!existsSync(dirname(settings.ledger)))
        throw new UsageError(`option --ledger: no such folder '${dirname(settings.ledger)}' to keep the ledger in`);
      try {
        ledger = readLedger(settings.ledger, targetName(settings.baseUrl, embedded), specSha256());
      } catch (error) {
        if (error instanceof LedgerError) throw new UsageError(`kgate conform: ${error.message}`);
        throw error;
      }
      options.ledgerFile = settings.ledger;
    }
    let plan: PricedPlan | undefined;
    if (plansCoverage(options)) {
      try {
        plan = planRun({
          selected,
          limits: {
            maxRps: options.maxRps,
            maxRpsByPath: options.maxRpsByPath,
            maxDurationMs: settings.maxDurationMs,
            maxRequests: settings.maxRequests,
          },
          seed: options.seed,
          refused: new Set([...referenceRefused(), ...(ledger ? refusedOf(ledger) : [])]),
          revealing: revealingItems(),
          ...(ledger ? { history: historyOf(ledger) } : {}),
        });
      } catch (error) {
        if (error instanceof BudgetTooSmall) throw new UsageError(`kgate conform: ${error.message}`);
        throw error;
      }
    }
    const say = (line: string) => (json ? console.error(line) : console.log(line));

    // The preflight is paced (and counted against --max-requests) too; its pace moves into the run's
    // folder once that exists.
    const pace = runPace(
      join(tmpdir(), `kgate-preflight-${process.pid}-${Date.now()}`),
      options.maxRps,
      options.maxRpsByPath,
      options.maxRequests,
    );
    let keys: Keys = settings.keys;
    let target = settings.baseUrl;
    let server: ReferenceServer | undefined;
    // A reference server kgate starts itself is reached directly, never through a proxy.
    const network = embedded ? embeddedNetwork(configured) : configured;
    applyNetwork(network);
    options.network!.description = network.description;
    if (network.description) say(`kgate conform: network: ${network.description}`);
    if (embedded) {
      // Loaded only here: a run against a deployment does not load the reference server.
      const { startReferenceServer } = await import('../../reference/index.ts');
      // Its corpora are built once Playwright's runner is started (onSpawn below), while it loads:
      // Playwright takes longer to send a first request than they take to build.
      server = await startReferenceServer({ quiet: true, buildAfterListening: true });
      target = server.url;
      keys = { full: server.keys.full, unsubscribed: server.keys.academicOnly, exhausted: server.keys.exhausted };
      if (!json)
        console.log(
          `kgate conform: no --base-url, KGATE_BASE_URL or baseUrl; judging the embedded reference server at ${target}`,
        );
    } else {
      for (const name of settings.unsetKeyVariables)
        console.error(`kgate conform: ${name} (named by keyVariables in the configuration file) is not set`);
      try {
        await checkReachable(target!);
      } catch (error) {
        console.error(
          `kgate conform: cannot reach ${target} (${(error as Error).message}). Start the target, or point --base-url / KGATE_BASE_URL at a running deployment (omit both to judge the embedded reference server).`,
        );
        return EXIT.usage;
      }
      if (!keys.full && !json) {
        console.error('kgate conform: KGATE_KEY is not set; requests carry no key, so most checks will fail with 401.');
      }
      for (const key of Object.values(keys)) registerSecret(key);
      const problem = await preflight(target!, keys.full, pace);
      if (problem) {
        pace?.remove();
        console.error(
          redactSecrets(
            problem.kind === 'key'
              ? `kgate conform: ${target} refused KGATE_KEY: ${problem.reason}. Check the key (and its subscriptions) before judging the target.`
              : `kgate conform: ${target}: ${problem.reason}`,
          ),
        );
        return EXIT.usage;
      }
    }
    for (const key of Object.values(keys)) registerSecret(key);
    // Each run writes its own folder, so two runs at once never mix their reports, verdicts or pace.
    options.reportDir = reportDir ?? createRunDir(DEFAULT_REPORT_DIR);
    pace?.continueIn(resolve(options.reportDir));
    // The workers follow the run's size and pace; a run small enough for one worker is one with one.
    const estimateWith = (workers: number) =>
      estimateRequests(selected, workers, undefined, options.generate, options.draw === true);
    options.workers = workersOf(options, plan?.budgeted ? plan.estimate.requests : estimateWith(1).total.typical);
    const workers = options.workers;
    const estimate = estimateWith(workers);
    options.maxDurationMs =
      settings.maxDurationMs ?? defaultMaxDurationMs(estimate, options.maxRps, options.maxRpsByPath);
    options.deadlineAt = started + options.maxDurationMs;
    if (plan) {
      options.planFile = join(resolve(options.reportDir), PLAN_FILE);
      mkdirSync(dirname(options.planFile), { recursive: true });
      writeFileSync(options.planFile, `${JSON.stringify(plan, null, 1)}\n`);
    }
    say(
      plan?.budgeted
        ? `${describePlan(plan, options, settings.maxDurationMs)}; time limit ${humanDuration(options.maxDurationMs)}`
        : `${describeEstimate(estimate, options.maxRps, options.maxRpsByPath)}${shard ? ` (this shard runs about 1/${shard.split('/')[1]} of it)` : ''}; time limit ${humanDuration(options.maxDurationMs)}${settings.maxDurationMs === undefined ? ' (default; --max-duration sets it)' : ''}`,
    );
    // A progress file an earlier run left in a reused --report-dir must not count for this one.
    rmSync(join(options.reportDir, PROGRESS_FILE), { force: true });
    // Playwright's own reporter writes to the terminal too: no live line to fight with it.
    const stopProgress = progressDisplay(() => progressLine(options.reportDir, started), {
      ...(options.playwrightReporter ? { interactive: false } : {}),
    });
    try {
      const proxies = network.settings.proxy;
      const result = await runSuite({
        baseUrl: target,
        keys,
        options,
        playwrightArgs,
        proxies: proxies && { https: proxies.https?.href, http: proxies.http?.href, noProxy: proxies.noProxy },
        onSpawn: () => {
          // Reading `ready` starts the build; a failed build fails the requests that wait for it.
          server?.ready.catch(() => {});
        },
      });
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
      if (json) console.log(redactSecrets(JSON.stringify({ command: 'conform', ...summary })));
      else {
        console.log(redactSecrets(`\n${renderTerminalSummary(summary)}\n`));
        console.log(
          `kgate conform: ${summary.verdict.toUpperCase()}; open ${join(options.reportDir, REPORT_HTML)} (also summary.md, summary.json, junit.xml${options.playwrightReport ? `, ${PLAYWRIGHT_DEBUG_DIR}/` : ''})`,
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
      await server?.close();
    }
  },
};
