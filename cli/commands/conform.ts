import { readEnv } from '../../config/env.ts';
import { APIS, type ApiName, ConfigError, loadConfig, parseApiList } from '../../config/file.ts';
import { redactSecrets, registerSecret } from '../../config/redact.ts';
import type { Keys } from '../../contracts/api.ts';
import { CHECK_IDS, getCheck } from '../../contracts/checks/index.ts';
import {
  type ConformOptions,
  DEFAULT_GENERATE,
  DEFAULT_REPORT_DIR,
  DEFAULT_SEED,
  DEFAULT_TIMEOUT_MS,
  REFERENCE_UNSUBSCRIBED_GROUPS,
  readConformOptions,
} from '../../contracts/options.ts';
import { checkReachable, keyRefusedEverywhere, runSuite } from '../../contracts/run.ts';
import { createRunDir } from '../../contracts/run-dir.ts';
import { startReferenceServer } from '../../reference/index.ts';
import {
  EXIT,
  intOption,
  listOption,
  noPositionals,
  parseCommandArgs,
  stringOption,
  targetBaseUrl,
  UsageError,
} from '../args.ts';
import type { Command } from '../main.ts';

const USAGE = `usage: kgate conform [--base-url URL] [--grep REGEX] [--checks ids] [--exclude-checks ids]
                     [--strict] [--timeout MS] [--workers N] [--with-rate-limit] [--shard I/N]
                     [--generate N] [--seed S] [--report-dir DIR] [--config FILE] [--json]

Runs the conformance suite (Playwright, contracts/) against a target and says, check by check,
whether it honours the interface. With no --base-url and no KGATE_BASE_URL it starts the embedded
reference server and judges that.

  --base-url         target base URL, may carry a path prefix (env KGATE_BASE_URL)
  --grep             only tests whose title matches (operation label or check id)
  --checks           comma-separated check ids to run (see contracts/README.md)
  --exclude-checks   comma-separated check ids to leave out
  --strict           warnings (what the interface saw only in samples) fail the gate
  --timeout          per-request deadline in milliseconds (default ${DEFAULT_TIMEOUT_MS})
  --workers          Playwright worker processes (default: number of cores, at least 2)
  --with-rate-limit  run the @rate-limit tests (bursts traffic; on by default for the embedded server)
  --shard            run shard I of N (Playwright --shard), e.g. 1/4
  --generate         generated requests in the generative phase (default ${DEFAULT_GENERATE}: every kind
                     of case once on every operation); 0 turns the phase off
  --seed             seed of the generated requests (default ${DEFAULT_SEED}); a finding names its seed
  --report-dir       write this run's reports to DIR (default: a new ${DEFAULT_REPORT_DIR}/<run-id>/,
                     with ${DEFAULT_REPORT_DIR}/latest pointing at it)
  --config           configuration file (default: kgate.config.json in the working directory, if any)
  --json             print one JSON result object instead of the report

keys (environment): KGATE_KEY (subscribed to every API), KGATE_KEY_UNSUBSCRIBED (a valid key
without a subscription to some API), KGATE_KEY_EXHAUSTED (quota used up). Checks that need a
key that was not given are reported as skipped. KGATE_KEY_UNSUBSCRIBED_COVERS (or
unsubscribedKeyCovers in the configuration file) names the APIs the unsubscribed key is
subscribed to (${APIS.join(', ')}, or none): auth-requires-subscription is then exact.
reports: summary.md, summary.json, junit.xml (one case per operation x check), results.json, html/
exit codes: 0 pass (warnings allowed), 1 a check failed, 2 bad usage or unreachable target`;

/** Validates check ids against the registry; an unknown one is a usage error listing the valid ids. */
export function validateCheckIds(ids: string[] | undefined, option: string): string[] | undefined {
  if (!ids) return undefined;
  const unknown = ids.filter((id) => !CHECK_IDS.includes(id));
  if (unknown.length > 0) {
    throw new UsageError(
      `option --${option}: unknown check id '${unknown.join("', '")}' (valid ids: ${CHECK_IDS.join(', ')})`,
    );
  }
  return ids;
}

/** The operation groups whose API the unsubscribed key does not cover (similarity is part of the academic API). */
export function groupsNotCovered(covers: readonly ApiName[]): string[] {
  const covered = new Set<string>(covers);
  if (covered.has('academic')) covered.add('similarity');
  return ['academic', 'similarity', 'answerSearch', 'urlPreview', 'eventKnowledge'].filter(
    (group) => !covered.has(group),
  );
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
    const { values, positionals } = parseCommandArgs(
      argv,
      {
        'base-url': { type: 'string' },
        grep: { type: 'string' },
        checks: { type: 'string' },
        'exclude-checks': { type: 'string' },
        strict: { type: 'boolean' },
        timeout: { type: 'string' },
        workers: { type: 'string' },
        'with-rate-limit': { type: 'boolean' },
        shard: { type: 'string' },
        generate: { type: 'string' },
        seed: { type: 'string' },
        'report-dir': { type: 'string' },
        config: { type: 'string' },
        json: { type: 'boolean' },
      },
      'conform',
    );
    noPositionals(positionals, 'conform');
    const env = readEnv();
    const baseUrl = targetBaseUrl(values, env.baseUrl);
    const checks = validateCheckIds(listOption(values, 'checks'), 'checks');
    const excludeChecks = validateCheckIds(listOption(values, 'exclude-checks'), 'exclude-checks');
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
    const embedded = baseUrl === undefined;
    const reportDirOption = stringOption(values, 'report-dir');
    if (reportDirOption !== undefined && reportDirOption.trim() === '')
      throw new UsageError('option --report-dir takes a folder path, got an empty string');
    let covers: ApiName[] | undefined;
    try {
      const config = loadConfig(stringOption(values, 'config'));
      covers = env.keyUnsubscribedCovers
        ? parseApiList(env.keyUnsubscribedCovers, 'KGATE_KEY_UNSUBSCRIBED_COVERS')
        : config.unsubscribedKeyCovers;
    } catch (error) {
      if (error instanceof ConfigError) throw new UsageError(`kgate conform: ${error.message}`);
      throw error;
    }
    const given = readConformOptions(undefined, !embedded);
    // KGATE_CONFORM_OPTIONS may carry a report folder (the CLI tests use it); --report-dir wins.
    const reportDir = reportDirOption ?? (JSON.parse(env.conformOptions ?? '{}') as { reportDir?: string }).reportDir;
    const options: ConformOptions = {
      ...given,
      strict: values.strict === true,
      timeoutMs: intOption(values, 'timeout', { min: 100, max: 600_000 }, DEFAULT_TIMEOUT_MS)!,
      workers: intOption(values, 'workers', { min: 1, max: 64 }),
      rateLimit: embedded || values['with-rate-limit'] === true,
      embedded,
      unsubscribedGroups: embedded ? REFERENCE_UNSUBSCRIBED_GROUPS : covers && groupsNotCovered(covers),
      checks,
      excludeChecks,
      quiet: json,
      sweep: undefined,
      generate: intOption(values, 'generate', { min: 0, max: 100_000 }, DEFAULT_GENERATE)!,
      seed: intOption(values, 'seed', { min: 0, max: 2 ** 32 - 1 }, DEFAULT_SEED)!,
    };
    const generativeOnly = (checks ?? []).filter((id) => getCheck(id)?.kind === 'generative');
    if (options.generate === 0 && checks && generativeOnly.length === checks.length) {
      throw new UsageError(
        `option --checks: ${generativeOnly.join(', ')} judge${generativeOnly.length === 1 ? 's' : ''} generated requests, which --generate 0 turns off`,
      );
    }
    const playwrightArgs = [...(grep ? ['--grep', grep] : []), ...(shard ? ['--shard', shard] : [])];

    let keys: Keys = { full: env.key, unsubscribed: env.keyUnsubscribed, exhausted: env.keyExhausted };
    let target = baseUrl;
    let server: Awaited<ReturnType<typeof startReferenceServer>> | undefined;
    if (embedded) {
      server = await startReferenceServer({ quiet: true });
      target = server.url;
      keys = { full: server.keys.full, unsubscribed: server.keys.academicOnly, exhausted: server.keys.exhausted };
      if (!json)
        console.log(
          `kgate conform: no --base-url or KGATE_BASE_URL; judging the embedded reference server at ${target}`,
        );
    } else {
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
      const refused = keys.full ? await keyRefusedEverywhere(target!, keys.full) : undefined;
      if (refused) {
        console.error(
          `kgate conform: ${target} refused KGATE_KEY: ${refused}. Check the key (and its subscriptions) before judging the target.`,
        );
        return EXIT.usage;
      }
    }
    for (const key of Object.values(keys)) registerSecret(key);
    // Each run writes its own folder, so two runs at once never mix their reports or verdicts.
    options.reportDir = reportDir ?? createRunDir(DEFAULT_REPORT_DIR);
    try {
      const result = await runSuite({ baseUrl: target, keys, options, playwrightArgs });
      const summary = result.summary;
      if (!summary) {
        console.error(
          redactSecrets(
            `kgate conform: the suite did not produce a summary (Playwright exit ${result.playwrightExitCode})\n${result.output}`,
          ),
        );
        return EXIT.failed;
      }
      if (json) console.log(redactSecrets(JSON.stringify({ command: 'conform', ...summary })));
      else
        console.log(
          `kgate conform: ${summary.verdict.toUpperCase()} (reports in ${options.reportDir}/: summary.md, summary.json, junit.xml, results.json, html/)`,
        );
      return summary.exitCode;
    } finally {
      await server?.close();
    }
  },
};
