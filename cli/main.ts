import { format } from 'node:util';
import { didYouMean, nearMisses } from '../config/near-miss.ts';
import { redactSecrets } from '../config/redact.ts';
import { kgateVersion } from '../reporting/run-meta.ts';
import { EXIT, TargetError, UsageError } from './door/args.ts';
import type { Command } from './door/command.ts';
import { errorMember, jsonPrinted, printJson, resetJsonPrinted } from './door/output.ts';
import { stopping } from './door/stops.ts';

/** The subcommands, loaded lazily so that `kgate validate` does not pay for Playwright or autocannon. */
export const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  conform: {
    summary: 'run the conformance suite against a target (default: the embedded reference server)',
    load: async () => (await import('./commands/conform.ts')).command,
  },
  validate: {
    summary: 'check a recorded response body against the spec',
    load: async () => (await import('./commands/validate.ts')).command,
  },
  serve: {
    summary: 'start the embedded reference server (with its fault catalogue)',
    load: async () => (await import('./commands/serve.ts')).command,
  },
  load: {
    summary: 'run a named load scenario with SLO thresholds',
    load: async () => (await import('./commands/load.ts')).command,
  },
  probe: {
    summary: 'find the rate limit (rate-limit) or the similarity body limit (body-limit)',
    load: async () => (await import('./commands/probe.ts')).command,
  },
  coverage: {
    summary: 'print the items of the coverage model: every cell and input class the gate can judge',
    load: async () => (await import('./commands/coverage.ts')).command,
  },
  fuzz: {
    summary: 'send generated requests: find the defects only some inputs trigger',
    load: async () => (await import('./commands/fuzz.ts')).command,
  },
  compare: {
    summary: 'judge a release candidate against the deployment it replaces (behaviour, noise, latency)',
    load: async () => (await import('./commands/compare.ts')).command,
  },
  drift: {
    summary: 'detect drift: live target vs spec, spec vs spec, recorded HAR vs spec',
    load: async () => (await import('./commands/drift.ts')).command,
  },
  report: {
    summary: 'list the runs, newest first, and open the latest page; report merge: one verdict of shards',
    load: async () => (await import('./commands/report.ts')).command,
  },
  k6: {
    summary: 'bundle a load scenario into one k6 script (k6 run, k6-operator)',
    load: async () => (await import('./commands/k6.ts')).command,
  },
};

const USAGE = `kgate: conformance, load and drift harness for the academic search, answer search,
URL preview and event knowledge interface

usage: kgate <command> [options]     (kgate help <command>, kgate <command> --help, kgate --version)

commands:
${Object.entries(COMMANDS)
  .map(([name, { summary }]) => `  ${name.padEnd(10)} ${summary}`)
  .join('\n')}

every command that talks to a target (conform, coverage, fuzz, compare, drift live, load, probe):
  the target: --base-url, else KGATE_BASE_URL, else baseUrl of the configuration file, else the
    embedded reference server; the first line says which and where it came from
  the key: KGATE_KEY (or the variable keyVariables.full of the configuration file names); against a
    deployment, a missing or refused key, an unreachable target, a base URL that routes nothing of
    the interface or a used-up quota stops it before the run, in one line (exit 2)
  one vocabulary: --max-requests N, --max-rps R, --max-duration D, --timeout D, --config FILE,
    --report-dir DIR, --json mean the same in every command that takes them
  durations: a number with a unit, 500ms, 10s, 2m, 1h (a bare number is refused, with the unit it needs)
  --report-dir DIR: this run's reports go into DIR itself, made and proven writable before anything is
    sent; without it, a new reports/<kind>/<run-id>/ (kind: conformance, fuzz, drift, compare, load,
    probe, merge; run id such as 20261128T103942Z-f719)
  SIGINT or SIGTERM: every process the command started is stopped and its folder marked interrupted
    (neither a verdict of the target nor a defect of kgate); exit 130 or 143
  --json: exactly one JSON object on stdout, whatever the outcome: {"command", "verdict" (pass, fail
    or error), "exitCode", ...}; a stop adds "error": {"kind" (usage, target or internal), "option" |
    "key" | "variable", "rule", "message"}
  bad input: one line naming the option (or configuration key, or variable), its rule and its unit,
    exit 2; an unknown option, key, command or mode gets its near miss (did you mean --max-rps?)

exit codes: 0 pass, 1 failure found, 2 bad usage, a target the door refused, or a run that judged
nothing; 130 or 143 stopped by SIGINT or SIGTERM`;

/** Whether a command line asks for --json (before a `--` that ends the options). */
function wantsJson(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).includes('--json');
}

/** The line a stop prints: `kgate <command>: <message>`, on one line, secrets masked. */
function stopLine(label: string, message: string): string {
  const flat = message.replace(/\s*\n\s*/g, ' ').trim();
  return redactSecrets(flat.startsWith('kgate ') ? flat : `kgate ${label}: ${flat}`);
}

/** Runs kgate with the given arguments and returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [first, ...after] = argv;
  if (first === '--version' || first === '-V' || first === 'version') {
    console.log(`kgate ${kgateVersion()}`);
    return EXIT.ok;
  }
  // `kgate help conform` is `kgate conform --help`; `kgate help drift live` that of drift live.
  const [name, ...rest] = first === 'help' && after.length > 0 ? [after[0], ...after.slice(1), '--help'] : argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(USAGE);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const json = wantsJson(argv);
  resetJsonPrinted();
  const entry = COMMANDS[name];
  if (!entry) {
    const near = didYouMean(name, Object.keys(COMMANDS));
    const rule = 'is not a command of kgate';
    const line = `kgate: unknown command '${name}' (${near ? `${near} ` : ''}commands: ${Object.keys(COMMANDS).join(', ')})`;
    console.error(line);
    if (json)
      printJson(name, EXIT.usage, {
        error: errorMember('usage', line, {
          argument: name,
          rule,
          ...(near ? { suggestion: nearMisses(name, Object.keys(COMMANDS))[0] } : {}),
        }),
      });
    return EXIT.usage;
  }
  const command = await entry.load();
  const sub = rest[0] !== undefined ? command.subcommands?.[rest[0]] : undefined;
  const label = sub ? `${name} ${rest[0]}` : name;
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(sub?.usage ?? command.usage);
    return EXIT.ok;
  }
  // Every line a command prints passes the masking (a password in a URL, a registered key), and
  // with --json the last line written to stderr explains an exit code 2 that no error carried.
  let lastError = '';
  // Once a signal stops the run, only the stop's own lines are printed (cli/door/stops.ts): what the
  // command's code says as its work is torn down would read as a verdict.
  const { log, error, warn, info } = console;
  console.log = (...parts: unknown[]) => stopping() || log(redactSecrets(format(...parts)));
  console.warn = (...parts: unknown[]) => stopping() || warn(redactSecrets(format(...parts)));
  console.info = (...parts: unknown[]) => stopping() || info(redactSecrets(format(...parts)));
  console.error = (...parts: unknown[]) => {
    if (stopping()) return;
    const text = redactSecrets(format(...parts));
    lastError = text.trim().split('\n').pop() ?? lastError;
    error(text);
  };
  try {
    const code = await command.run(rest);
    // A command that ended without its object stopped short: the target (exit 2) or kgate itself.
    if (json && !jsonPrinted())
      printJson(
        label,
        code,
        code === EXIT.ok
          ? {}
          : { error: errorMember(code === EXIT.usage ? 'target' : 'internal', lastError || `kgate ${label} stopped`) },
        code === EXIT.ok ? 'pass' : 'error',
      );
    return code;
  } catch (thrown) {
    if (thrown instanceof UsageError || thrown instanceof TargetError) {
      const at = thrown.details.command ?? label;
      const line = stopLine(at, thrown.message);
      console.error(line);
      if (json && !jsonPrinted()) {
        const kind = thrown instanceof UsageError ? 'usage' : 'target';
        printJson(at, EXIT.usage, { error: errorMember(kind, line, thrown.details) });
      }
      return EXIT.usage;
    }
    const text = thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown);
    console.error(`kgate ${label}: ${redactSecrets(text)}`);
    if (json && !jsonPrinted()) {
      const first = thrown instanceof Error ? thrown.message : String(thrown);
      printJson(label, EXIT.failed, { error: errorMember('internal', `kgate ${label}: ${first}`) }, 'error');
    }
    return EXIT.failed;
  } finally {
    console.log = log;
    console.error = error;
    console.warn = warn;
    console.info = info;
  }
}
