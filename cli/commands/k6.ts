import { existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError, loadConfig } from '../../config/file.ts';
import type { BundleSettings } from '../../load/k6/options.ts';
import { bundleScenario, CONFIGMAP_LIMIT_BYTES, K6_SCENARIOS, K6_TARGET } from '../../load/k6-bundle.ts';
import { SCENARIOS } from '../../load/scenarios.ts';
import { EXIT, option, parseCommandArgs, UsageError } from '../door/args.ts';
import type { Command } from '../door/command.ts';
import { configUsageError } from '../door/config-error.ts';
import { configName } from '../door/door.ts';
import { JSON_USAGE, printJson } from '../door/output.ts';
import { optionUsage, sharedOptions } from '../door/vocabulary.ts';
import { MIX_FROM_OPTION, rulesInForce, THRESHOLD_OPTION, withTeamMix } from './load-settings.ts';

const USAGE = `usage: kgate k6 bundle <${K6_SCENARIOS.join('|')}> [--out FILE] [--threshold RULE ...] [--mix-from FILE.har]
                       [--seed S] [--config FILE] [--json]

Writes one self-contained k6 script for a load scenario: the same operation mix, arrival profile
and thresholds as kgate load, in one file with only k6 modules imported and ${K6_TARGET} syntax, so
that any k6 release (0.4x included) runs it as is and it fits a k6-operator ConfigMap (< 1 MiB).
The team's thresholds and mix are the ones kgate load reads (load.thresholds and load.mix of the
configuration file, --threshold, --mix-from): the script's k6 thresholds are written from the same
rules, so a run on k6 judges what kgate load judges.

${optionUsage(11, [
  ['out', 'write the script to FILE (default: standard output)'],
  [
    'threshold',
    "a threshold in k6's syntax as kgate load takes it ('evaluateGet: p(95)<300ms', '*: error_rate<1%'), once per rule; a rule of one operation judges k6's requests tagged with it",
  ],
  ['mix-from', "shape the script's arrivals after recorded traffic, a HAR file, as kgate load --mix-from does"],
  ['seed', "seed of --mix-from's draw of the recorded inputs (default 1)"],
  ['config', undefined, 'its load.thresholds and load.mix go into the script'],
  [
    'json',
    'print one JSON object: { scenario, bytes, thresholds, out } (with --out) or { scenario, bytes, thresholds, script } after "command", "verdict" and "exitCode"; a stop (bad usage) too',
  ],
])}
${JSON_USAGE}

Run it: k6 run -e BASE_URL=https://host/prefix -e KGATE_KEY=... steady.js
        (-e RATE=<peak/s> -e DURATION_S=<s> -e CONNECTIONS=<VUs> -e VALIDATE_PERCENT=<0..100> override the scenario;
        VALIDATE_PERCENT is the percentage of answers checked, as kgate load --validate-share; the old
        VALIDATE_SHARE=<0..1> is still read, with a note, until the next release)
        (-e KGATE_HEADERS='{"Authorization":"Bearer ...","X-Tenant":"acme"}' adds headers to every request,
        as kgate load's --header does; a BASE_URL with user:password@ sends Basic authorization;
        the User-Agent is kgate/<version> (k6), replaced by a User-Agent in KGATE_HEADERS)
Distributed: load/k6/testrun.yaml (k6-operator TestRun; load/README.md shows the steps).
exit codes: 0 written, 2 bad usage`;

/** The options of `kgate k6 bundle`. */
const OPTIONS = {
  out: option.path('file'),
  threshold: THRESHOLD_OPTION,
  'mix-from': MIX_FROM_OPTION,
  seed: option.whole(0, 2 ** 32 - 1),
  ...sharedOptions('config'),
  json: option.flag(),
};

/** `kgate k6 bundle`: a k6 script for `k6 run` and the k6-operator. */
export const command: Command = {
  usage: USAGE,
  subcommands: { bundle: { usage: USAGE, options: OPTIONS } },
  async run(argv) {
    const [mode, ...rest] = argv;
    if (mode !== 'bundle') {
      throw new UsageError(
        mode === undefined
          ? 'kgate k6: needs a mode: bundle (see kgate k6 --help)'
          : `kgate k6: unknown mode '${mode}' (modes: bundle)`,
        { rule: 'takes a mode: bundle', ...(mode === undefined ? {} : { argument: mode }) },
      );
    }
    const { positionals, options: given } = parseCommandArgs(rest, OPTIONS, 'k6 bundle');
    const [scenario, extra] = positionals;
    if (scenario === undefined || !K6_SCENARIOS.includes(scenario)) {
      throw new UsageError(
        `kgate k6 bundle: needs a scenario: one of ${K6_SCENARIOS.join(', ')}${scenario === undefined ? '' : `, got '${scenario}'`}`,
      );
    }
    if (extra !== undefined) throw new UsageError(`kgate k6 bundle: unexpected argument '${extra}'`);
    const out = given.out;
    if (out !== undefined) {
      const folder = dirname(resolve(out));
      if (!existsSync(folder) || !statSync(folder).isDirectory())
        throw new UsageError(`option --out: no such folder '${dirname(out)}' to write into`);
    }
    const file = configName(given.config);
    let config: ReturnType<typeof loadConfig>;
    try {
      config = loadConfig(given.config);
    } catch (error) {
      if (error instanceof ConfigError) throw configUsageError(error, 'k6 bundle');
      throw error;
    }
    // The team's rules and mix, read as kgate load reads them; none stated: the scenario's own, and the plain bundle.
    const base = SCENARIOS[scenario]!;
    const rules = rulesInForce(base, config, file, given.threshold);
    const team = withTeamMix(base, config, given['mix-from'], given.seed ?? 1);
    const settings: BundleSettings = {
      ...(rules.some((rule) => rule.source !== 'scenario') ? { thresholds: rules.map((rule) => rule.text) } : {}),
      ...(team.origin.kind !== 'scenario' ? { mix: team.scenario.mix } : {}),
    };
    const script = await bundleScenario(scenario, settings);
    const bytes = Buffer.byteLength(script);
    if (bytes >= CONFIGMAP_LIMIT_BYTES && settings.mix)
      throw new UsageError(
        `kgate k6 bundle: the ${scenario} script with the team's mix is ${bytes} bytes, over a ConfigMap's 1 MiB: record fewer distinct requests, or give load.mix weights instead of --mix-from`,
        { option: '--mix-from', rule: 'makes a script under 1 MiB' },
      );
    // Without the team's mix, a bundle that outgrew a ConfigMap is a defect of kgate, not of the user's input.
    if (bytes >= CONFIGMAP_LIMIT_BYTES)
      throw new Error(`the ${scenario} bundle is ${bytes} bytes, over a ConfigMap's 1 MiB`);
    if (out !== undefined) writeFileSync(out, script);
    if (given.json === true) {
      printJson('k6 bundle', EXIT.ok, {
        scenario,
        bytes,
        thresholds: rules.map((rule) => rule.text),
        ...(out === undefined ? { script } : { out }),
      });
      return EXIT.ok;
    }
    if (out === undefined) {
      process.stdout.write(script);
      return EXIT.ok;
    }
    console.error(
      `kgate k6 bundle: ${scenario} written to ${out} (${bytes} bytes); run it with k6 run -e BASE_URL=... ${out}`,
    );
    return EXIT.ok;
  },
};
