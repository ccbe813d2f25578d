import { redactSecrets } from '../config/redact.ts';
import { EXIT, UsageError } from './args.ts';
import type { Command } from './command.ts';

/** The subcommands, loaded lazily so that `kgate validate` does not pay for Playwright or autocannon. */
const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
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
    summary: 'print where the latest report page is (and open it); report merge: one verdict from shards',
    load: async () => (await import('./commands/report.ts')).command,
  },
  k6: {
    summary: 'bundle a load scenario into one k6 script (k6 run, k6-operator)',
    load: async () => (await import('./commands/k6.ts')).command,
  },
};

const USAGE = `kgate: conformance, load and drift harness for the academic search, answer search,
URL preview and event knowledge interface

usage: kgate <command> [options]     (kgate <command> --help for its options)

commands:
${Object.entries(COMMANDS)
  .map(([name, { summary }]) => `  ${name.padEnd(10)} ${summary}`)
  .join('\n')}

exit codes: 0 pass, 1 failure found, 2 bad usage or unreachable target`;

/** Runs kgate with the given arguments and returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(USAGE);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version') {
    console.log('kgate 0.1.0');
    return EXIT.ok;
  }
  const entry = COMMANDS[name];
  if (!entry) {
    console.error(`kgate: unknown command '${name}' (commands: ${Object.keys(COMMANDS).join(', ')})`);
    return EXIT.usage;
  }
  const command = await entry.load();
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(command.usage);
    return EXIT.ok;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(redactSecrets(error.message));
      return EXIT.usage;
    }
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    console.error(`kgate ${name}: ${redactSecrets(text)}`);
    return EXIT.failed;
  }
}
