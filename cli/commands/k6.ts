import { existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { bundleScenario, CONFIGMAP_LIMIT_BYTES, K6_SCENARIOS, K6_TARGET } from '../../load/k6-bundle.ts';
import { EXIT, option, parseCommandArgs, UsageError } from '../door/args.ts';
import type { Command } from '../door/command.ts';
import { JSON_USAGE, printJson } from '../door/output.ts';

const USAGE = `usage: kgate k6 bundle <${K6_SCENARIOS.join('|')}> [--out FILE] [--json]

Writes one self-contained k6 script for a load scenario: the same operation mix, arrival profile
and thresholds as kgate load, in one file with only k6 modules imported and ${K6_TARGET} syntax, so
that any k6 release (0.4x included) runs it as is and it fits a k6-operator ConfigMap (< 1 MiB).

  --out   write the script to FILE (default: standard output)
  --json  print one JSON object: { scenario, bytes, out } (with --out) or { scenario, bytes, script }
          after "command", "verdict" and "exitCode"; a stop (bad usage) too
${JSON_USAGE}

Run it: k6 run -e BASE_URL=https://host/prefix -e KGATE_KEY=... steady.js
        (-e RATE=<peak/s> -e DURATION_S=<s> -e CONNECTIONS=<VUs> -e VALIDATE_SHARE=<0..1> override the scenario)
        (-e KGATE_HEADERS='{"Authorization":"Bearer ...","X-Tenant":"acme"}' adds headers to every request,
        as kgate load's --header does; a BASE_URL with user:password@ sends Basic authorization;
        the User-Agent is kgate/<version> (k6), replaced by a User-Agent in KGATE_HEADERS)
Distributed: load/k6/testrun.yaml (k6-operator TestRun; load/README.md shows the steps).
exit codes: 0 written, 2 bad usage`;

/** The options of `kgate k6 bundle`. */
const OPTIONS = { out: option.path('file'), json: option.flag() };

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
    const script = await bundleScenario(scenario);
    const bytes = Buffer.byteLength(script);
    // A bundle that outgrew a ConfigMap is a defect of kgate, not of the user's input.
    if (bytes >= CONFIGMAP_LIMIT_BYTES)
      throw new Error(`the ${scenario} bundle is ${bytes} bytes, over a ConfigMap's 1 MiB`);
    if (out !== undefined) writeFileSync(out, script);
    if (given.json === true) {
      printJson('k6 bundle', EXIT.ok, { scenario, bytes, ...(out === undefined ? { script } : { out }) });
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
