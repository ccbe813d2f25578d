import { MASK, registerSecret } from '../../config/redact.ts';
import {
  defaultKeys,
  KeyConfigError,
  listFaults,
  listVariations,
  PROFILES,
  type Profile,
  type ReferenceKeys,
  startReferenceServer,
} from '../../reference/index.ts';
import { EXIT, noPositionals, option, parseCommandArgs, UsageError } from '../door/args.ts';
import type { Command } from '../door/command.ts';
import { printJson } from '../door/output.ts';

const USAGE = `usage: kgate serve [--port N] [--host 127.0.0.1] [--seed S] [--papers N] [--rate-limit R]
                   [--body-limit B] [--config FILE] [--profile clean|real] [--json] [--list-faults]
                   [--list-variations]

Starts the reference server: all 13 operations from a corpus generated from the seed, plus the
fault catalogue under {url}/faults/<name> and the legitimate variations under
{url}/variations/<name> (answers the interface allows, which the gate must pass). Stops cleanly on Ctrl-C (SIGINT) or SIGTERM.

  --port         TCP port, 0 picks a free one (default 0)
  --host         interface to listen on (default 127.0.0.1)
  --seed         seed of the corpora and of the built-in keys (default 1)
  --papers       number of academic papers (default 10000, up to 2000000)
  --rate-limit   requests per second per key on answer search and URL preview (default 100)
  --body-limit   similarity POST body limit in bytes (default 1048576)
  --config       JSON file with extra keys, subscriptions and quotas (see reference/README.md)
  --profile      how the root URL answers: clean (default, the interface read strictly) or real
                 (as the real service did: no aborted, logprob, minimal facts, exponent numbers...)
  --json         print one line {"command":"serve","verdict":"pass","exitCode":0,"url":...,"keys":{...}}
                 instead of the banner (a stop, such as a port in use: {..., "error": {...}})
  --list-faults  print the fault catalogue, one line per fault, and exit
  --list-variations
                 print the legitimate variations, one line each: name, group, the freedom of
                 the interface that allows it, description; and exit

The built-in keys are local reference keys derived from the seed and are printed so they can be
used; keys that come from --config are masked.
exit codes: 0 stopped cleanly, 2 bad usage or the port cannot be opened`;

function banner(url: string, keys: ReferenceKeys, examples: string[], faultCount: number, profile: Profile): string {
  const curl = (path: string) => `  curl -s -H 'Ocp-Apim-Subscription-Key: ${keys.full}' '${url}${path}'`;
  return [
    `kgate reference server listening on ${url}`,
    ...(profile === 'real'
      ? ['profile real: the root URL answers the way the real service did (reference/README.md)']
      : []),
    '',
    'subscription keys:',
    `  full          ${keys.full}   (every API)`,
    `  academicOnly  ${keys.academicOnly}   (academic search and similarity only)`,
    `  exhausted     ${keys.exhausted}   (quota used up: 403 everywhere)`,
    '',
    'try:',
    ...examples.map(curl),
    '',
    `${faultCount} faults: curl -s ${url}/faults   (base url of one: ${url}/faults/<name>)`,
    'stop with Ctrl-C',
  ].join('\n');
}

/** The options of `kgate serve`. */
const OPTIONS = {
  port: option.whole(0, 65_535, { rule: 'a TCP port number from 0 to 65535 (0: a free one)' }),
  host: option.text('a host name or address to listen on', ''),
  seed: option.whole(0, 2 ** 31 - 1),
  papers: option.whole(1, 2_000_000, 'papers'),
  'rate-limit': option.decimal(0.001, 1_000_000, 'requests per second per key'),
  'body-limit': option.whole(1, 1024 ** 3, 'bytes'),
  config: option.path('file'),
  profile: option.choice(PROFILES),
  json: option.flag(),
  'list-faults': option.flag(),
  'list-variations': option.flag(),
};

/** `kgate serve`: runs the reference server until SIGINT or SIGTERM. */
export const command: Command = {
  usage: USAGE,
  options: OPTIONS,
  async run(argv) {
    const { positionals, options: given } = parseCommandArgs(argv, OPTIONS, 'serve');
    noPositionals(positionals, 'serve');
    if (given['list-faults']) {
      const lines = listFaults().map(
        (fault) =>
          `${fault.name.padEnd(44)} ${fault.group.padEnd(15)} ${fault.deviation.padEnd(10)} ${fault.description}`,
      );
      process.stdout.write(`${lines.join('\n')}\n`);
      return EXIT.ok;
    }
    if (given['list-variations']) {
      const lines = listVariations().map(
        (variation) =>
          `${variation.name.padEnd(44)} ${variation.group.padEnd(15)} ${variation.allowedBy}: ${variation.description}`,
      );
      process.stdout.write(`${lines.join('\n')}\n`);
      return EXIT.ok;
    }
    const profile = given.profile ?? 'clean';
    const seed = given.seed ?? 1;
    const options = {
      port: given.port ?? 0,
      host: given.host ?? '127.0.0.1',
      seed,
      papers: given.papers,
      rateLimit: given['rate-limit'],
      bodyLimit: given['body-limit'],
      configFile: given.config,
      profile: profile as Profile,
    };

    let server: Awaited<ReturnType<typeof startReferenceServer>>;
    try {
      server = await startReferenceServer(options);
    } catch (error) {
      if (error instanceof KeyConfigError) throw new UsageError(`kgate serve: ${error.message}`);
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
        throw new UsageError(`kgate serve: cannot listen on ${options.host}:${options.port} (${code})`);
      }
      throw error;
    }
    // Built-in keys are local reference keys and are shown; keys from a config file stay secret.
    const builtIn = defaultKeys(seed);
    const shown = { ...server.keys };
    for (const role of ['full', 'academicOnly', 'exhausted'] as const) {
      if (server.keys[role] !== builtIn[role]) {
        registerSecret(server.keys[role]);
        shown[role] = MASK;
      }
    }
    // Listen for the signals before announcing the server, so a caller may stop it as soon as it reads the line.
    const stopped = new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    if (given.json) {
      printJson('serve', EXIT.ok, { url: server.url, keys: shown, ...(profile === 'clean' ? {} : { profile }) });
    } else console.log(banner(server.url, shown, server.examples, listFaults().length, options.profile));

    await stopped;
    await server.close();
    return EXIT.ok;
  },
};
