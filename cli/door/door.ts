// The one door of every command that talks to a target (conform, fuzz, compare, drift live, load,
// probe, coverage). Each resolves here, the same way, before it does any work of its own:
// - the target: --base-url, else KGATE_BASE_URL, else baseUrl of the configuration file, else the
//   embedded reference server; said in the command's first line, with where it came from;
// - the keys (KGATE_KEY*, or the variables keyVariables names), the route (proxy, CA, client
//   certificate), the headers, and the limits (--timeout, --max-rps, --max-requests, --max-duration,
//   each over the file's key);
// - the report folder, made and proven writable before anything is sent;
// - the stops: SIGINT and SIGTERM stop what the command started and mark its folder interrupted.
// Then `enter` knows what can be known before the run: a deployment without a key, one that cannot
// be reached, whose base URL routes nothing of the interface, or that refuses the key or has no
// quota left is one line and exit 2, within the preflight's few requests, counted in the run's
// budget; the embedded server is started only when nothing names a target.
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type HarnessEnv, KEY_VARIABLES, readCompareKeys, readEnv, readKeys } from '../../config/env.ts';
import { CONFIG_FILES, ConfigError, type KgateConfig, loadConfig } from '../../config/file.ts';
import { redactSecrets, registerSecret } from '../../config/redact.ts';
import type { Keys } from '../../contracts/api.ts';
import { checkReachable, type PreflightProblem, preflight } from '../../contracts/preflight.ts';
import type { RequestPace } from '../../http/pacing.ts';
import { isLoopback } from '../../load/target.ts';
import type { RunKind } from '../../reporting/run-dir.ts';
import { type ParsedArgs, parseBaseUrl, TargetError, UsageError, type UsageSubject } from './args.ts';
import { configUsageError } from './config-error.ts';
import { applyNetwork, embeddedNetwork, type ResolvedNetwork, resolveNetwork } from './network.ts';
import { runFolder } from './run-folder.ts';
import { installStops, stopping } from './stops.ts';

/** What a command tells the door of itself. */
export interface DoorSpec {
  /** Its name in messages: `fuzz`, `drift live`, `probe rate-limit`. */
  command: string;
  /** The kind of its report folder; absent: it writes none. */
  kind?: RunKind;
  /** False for a command that only names its target and sends nothing (coverage). */
  sends?: boolean;
  /** Only a loopback target, unless --allow-remote (load and probes send load). */
  loopbackOnly?: boolean;
  /** It judges a second deployment beside the target (compare: --against-url, againstUrl). */
  against?: boolean;
}

/** The shared options as a command's table read them (cli/door/vocabulary.ts). */
export interface DoorGiven {
  'base-url'?: string;
  'against-url'?: string;
  config?: string;
  'report-dir'?: string;
  json?: boolean;
  timeout?: number;
  'max-rps'?: number;
  'max-requests'?: number;
  'max-duration'?: number;
  'allow-remote'?: boolean;
}

/** Where a target came from. */
export interface TargetChoice {
  /** The base URL, without a trailing slash; undefined: the embedded reference server. */
  url?: string;
  /** In words: `--base-url`, `KGATE_BASE_URL`, `baseUrl in kgate.config.json`. */
  source: string;
  /** The option, variable or configuration key that named it (a stop about it names it too). */
  subject: UsageSubject;
}

/** The limits of a run, each from its option, else the configuration file's key. */
export interface Limits {
  timeoutMs?: number;
  maxRps?: number;
  maxRequests?: number;
  maxDurationMs?: number;
}

/** The embedded reference server a command started, its keys and how to stop it. */
export interface Embedded {
  baseUrl: string;
  keys: Keys;
  close(): Promise<void>;
}

/** What the command talks to, once the door let it in. */
export interface Entered {
  baseUrl: string;
  keys: Keys;
  /** kgate started the reference server itself: nothing named a target. */
  embedded: boolean;
  /** compare: the deployment the target replaces, and its key. */
  against?: { baseUrl: string; key?: string };
}

/** The configuration file read: --config's, else the first of CONFIG_FILES in the working directory. */
export function configName(given: string | undefined): string | undefined {
  return given ?? CONFIG_FILES.find((name) => existsSync(resolve(process.cwd(), name)));
}

/** The door of one command's run; `openDoor` opens it. */
export class Door {
  readonly command: string;
  readonly json: boolean;
  readonly env: HarnessEnv;
  readonly config: KgateConfig;
  /** The configuration file read, when there is one. */
  readonly configFile?: string;
  readonly target: TargetChoice;
  readonly against?: TargetChoice;
  /** The keys of the deployment (the embedded server's own are handed out by `enter`). */
  readonly keys: Keys;
  readonly againstKey?: string;
  /** Key variables the configuration file names that are not set. */
  readonly unsetKeyVariables: string[];
  readonly network: ResolvedNetwork;
  readonly limits: Limits;
  /** The run's report folder, made and proven writable by `enter`; absent for a command that writes none. */
  reportDir?: string;
  private readonly spec: DoorSpec;
  private readonly givenReportDir?: string;
  /** Aborted when a signal stops the run. */
  readonly abort = new AbortController();
  private readonly cleanups: (() => Promise<void> | void)[] = [];
  private readonly removeStops: () => void;
  private entered?: Entered;

  constructor(spec: DoorSpec, parsed: Pick<ParsedArgs, 'values' | 'notes'> & { options: DoorGiven }) {
    const given = parsed.options;
    this.spec = spec;
    this.givenReportDir = given['report-dir'];
    this.command = spec.command;
    this.json = given.json === true;
    for (const note of parsed.notes) console.error(note);
    this.env = readEnv();
    try {
      this.config = loadConfig(given.config);
    } catch (error) {
      if (error instanceof ConfigError) throw configUsageError(error, spec.command);
      throw error;
    }
    this.configFile = configName(given.config);
    const fromFile = (key: string) => `${key} in ${this.configFile ?? 'the configuration file'}`;
    this.target = given['base-url']
      ? { url: given['base-url'], source: '--base-url', subject: { option: '--base-url' } }
      : this.env.baseUrl
        ? {
            url: parseBaseUrl(this.env.baseUrl, 'KGATE_BASE_URL'),
            source: 'KGATE_BASE_URL',
            subject: { variable: 'KGATE_BASE_URL' },
          }
        : this.config.baseUrl
          ? {
              url: this.config.baseUrl,
              source: fromFile('baseUrl'),
              subject: { key: 'baseUrl', ...(this.configFile ? { file: this.configFile } : {}) },
            }
          : { source: 'nothing names a target: no --base-url, KGATE_BASE_URL or baseUrl', subject: {} };
    if (spec.against) {
      const url = given['against-url'] ?? this.config.againstUrl;
      this.against = {
        url,
        source: given['against-url'] ? '--against-url' : fromFile('againstUrl'),
        subject: given['against-url'] || !this.config.againstUrl ? { option: '--against-url' } : { key: 'againstUrl' },
      };
      if (!this.target.url)
        throw new UsageError(
          `option --base-url is required: the release candidate (or KGATE_BASE_URL, or baseUrl in the configuration file)`,
          { option: '--base-url', rule: 'is required: the release candidate' },
        );
      if (!url)
        throw new UsageError(
          'option --against-url is required: the deployment the candidate replaces (or againstUrl in the configuration file)',
          { option: '--against-url', rule: 'is required: the deployment the candidate replaces' },
        );
    }
    if (spec.loopbackOnly && given['allow-remote'] !== true)
      for (const choice of [this.target, this.against])
        if (choice?.url && !isLoopback(choice.url))
          throw new UsageError(
            `refusing to send load to the non-loopback target ${new URL(choice.url).host} without --allow-remote (the target is from ${choice.source})`,
            { ...choice.subject, rule: 'names a loopback address unless --allow-remote is given' },
          );
    const { keys, unset } = readKeys(this.config.keyVariables);
    this.keys = keys;
    this.unsetKeyVariables = unset;
    if (spec.against) {
      const compared = readCompareKeys(this.config.keyVariables);
      this.againstKey = compared.current;
      this.unsetKeyVariables = [...new Set([...unset, ...compared.unset])];
    }
    for (const key of [...Object.values(this.keys), this.againstKey]) registerSecret(key);
    const configured = resolveNetwork(
      parsed.values,
      this.env,
      this.config,
      this.configFile ? this.configFile : undefined,
    );
    // A reference server kgate starts itself is reached directly, never through a proxy.
    this.network = this.target.url ? configured : embeddedNetwork(configured);
    applyNetwork(this.network, this.target.url, this.against?.url);
    // A command that sends nothing says its target now; one that sends says it as it enters, once
    // its own options are known to be usable too: either way it is the first line.
    if (spec.sends === false) this.sayTarget();
    this.limits = {
      timeoutMs: given.timeout ?? this.config.timeoutMs,
      maxRps: given['max-rps'] ?? this.config.maxRps,
      maxRequests: given['max-requests'] ?? this.config.maxRequests,
      maxDurationMs:
        given['max-duration'] ?? (this.config.maxDuration === undefined ? undefined : this.config.maxDuration * 1000),
    };
    this.removeStops = installStops({
      command: spec.command,
      reportDir: () => this.reportDir,
      target: () => (this.entered ? this.entered.baseUrl : this.target.url),
      cleanups: () => this.cleanups.splice(0),
      abort: this.abort,
    });
  }

  /** The command's first lines: its target and where it came from, and the route when it is not direct. */
  private sayTarget(): void {
    this.say(this.targetLine());
    if (this.network.description) this.say(`kgate ${this.command}: network: ${this.network.description}`);
  }

  /** The command's first line: its target and where it came from. */
  private targetLine(): string {
    const named = (choice: TargetChoice) => `${choice.url} (from ${choice.source})`;
    if (this.against) return `kgate ${this.command}: target: ${named(this.target)} against ${named(this.against)}`;
    return this.target.url
      ? `kgate ${this.command}: target: ${named(this.target)}`
      : `kgate ${this.command}: target: the embedded reference server (${this.target.source})`;
  }

  /** A deployment without a key is refused before anything is sent: every operation requires one. */
  private requireKeys(): void {
    const fullVariable = this.config.keyVariables?.full;
    for (const name of this.unsetKeyVariables)
      if (name !== fullVariable && name !== this.config.keyVariables?.against)
        this.note(`kgate ${this.command}: ${name} (named by keyVariables in the configuration file) is not set`);
    const missing: [string, string][] = [];
    if (!this.keys.full) missing.push([fullVariable ?? KEY_VARIABLES.full, this.target.url!]);
    if (this.against && !this.againstKey) missing.push(['KGATE_AGAINST_KEY', this.against.url!]);
    const [variable, url] = missing[0] ?? [];
    if (variable === undefined) return;
    const named =
      fullVariable && variable === fullVariable ? ' (named by keyVariables.full in the configuration file)' : '';
    throw new UsageError(
      `no subscription key for ${url}: ${variable}${named} is not set. Every operation of the interface requires one: set ${variable} to a key the deployment accepts`,
      { variable, rule: 'must hold a subscription key of the deployment' },
    );
  }

  /** A line of the run: on stdout, or on stderr under --json (stdout then holds only the JSON object). */
  say(line: string): void {
    if (this.json) console.error(redactSecrets(line));
    else console.log(redactSecrets(line));
  }

  /** A note on stderr. */
  note(line: string): void {
    console.error(redactSecrets(line));
  }

  /** Registers what stops something the command started (a server, a process), on a signal or at close: the last registered stops first. */
  onStop(cleanup: () => Promise<void> | void): void {
    this.cleanups.push(cleanup);
  }

  /**
   * Lets the command in: the embedded server started (`embedded`) when nothing names a target, or
   * the deployment (and compare's second one) checked along the run's route: reachable, routed,
   * its key accepted, quota left. The preflight's requests go through `pace` (the run's budget).
   */
  async enter(
    options: { pace?: RequestPace; embedded?: () => Promise<Embedded>; preflight?: boolean } = {},
  ): Promise<Entered> {
    this.sayTarget();
    // A deployment without a key, then the report folder: known, made and proven writable before anything is sent.
    if (this.spec.sends !== false && this.target.url) this.requireKeys();
    if (this.spec.kind) this.reportDir = writableFolder(this.givenReportDir, this.spec.kind, this.command);
    try {
      return await this.enterTarget(options);
    } catch (error) {
      // A stop at the door leaves the folder saying why, so that it never reads as a verdict.
      if (this.reportDir && (error instanceof TargetError || error instanceof UsageError))
        writeStopped(this.reportDir, this.command, error.message, this.target.url);
      throw error;
    }
  }

  private async enterTarget(options: {
    pace?: RequestPace;
    embedded?: () => Promise<Embedded>;
    preflight?: boolean;
  }): Promise<Entered> {
    if (!this.target.url) {
      if (!options.embedded) throw new Error(`kgate ${this.command} has no embedded reference server to start`);
      const server = await options.embedded();
      this.onStop(() => server.close());
      for (const key of Object.values(server.keys)) registerSecret(key);
      this.note(`kgate ${this.command}: the embedded reference server listens at ${server.baseUrl}`);
      this.entered = { baseUrl: server.baseUrl, keys: server.keys, embedded: true };
      return this.entered;
    }
    await this.check(this.target, this.keys.full, options.pace, options.preflight !== false);
    if (this.against) await this.check(this.against, this.againstKey, options.pace, options.preflight !== false);
    this.entered = {
      baseUrl: this.target.url,
      keys: this.keys,
      embedded: false,
      ...(this.against ? { against: { baseUrl: this.against.url!, key: this.againstKey } } : {}),
    };
    return this.entered;
  }

  /** One deployment: reachable, then the preflight; a problem is a TargetError naming what pointed there. */
  private async check(
    choice: TargetChoice,
    key: string | undefined,
    pace: RequestPace | undefined,
    ask: boolean,
  ): Promise<void> {
    const url = choice.url!;
    const fix = `correct ${choice.source}${choice.source === '--base-url' || choice.source === '--against-url' ? '' : ' (or give --base-url)'}`;
    try {
      await checkReachable(url);
    } catch (error) {
      throw new TargetError(
        `cannot reach ${url} (from ${choice.source}): ${(error as Error).message}. Start the deployment, or ${fix}`,
        {
          ...choice.subject,
          rule: 'names a deployment that answers',
        },
      );
    }
    if (!ask) return;
    const problem = await preflight(url, key, pace);
    if (problem) throw new TargetError(problemLine(problem, url, choice, fix), problemSubject(problem, choice));
  }

  /** Stops what the command started and removes the signal handlers: the run ended on its own. */
  async close(): Promise<void> {
    if (stopping()) return;
    this.removeStops();
    for (const cleanup of this.cleanups.splice(0).reverse()) await cleanup();
  }
}

/** The summary.json and summary.md of a run the door stopped before it judged anything (exit 2). */
function writeStopped(dir: string, command: string, message: string, target: string | undefined): void {
  const line = redactSecrets(message.replace(/\s*\n\s*/g, ' '));
  const summary = {
    command,
    verdict: 'error',
    exitCode: 2,
    ...(target ? { baseUrl: target } : {}),
    error: { kind: 'target', message: line },
  };
  writeFileSync(join(dir, 'summary.json'), `${redactSecrets(JSON.stringify(summary, null, 2))}\n`);
  writeFileSync(
    join(dir, 'summary.md'),
    `# kgate ${command}: NO VERDICT\n\nStopped before anything was judged (exit 2): ${line}\n`,
  );
}

/** The one line of a preflight problem, with how to fix it. */
function problemLine(problem: PreflightProblem, url: string, choice: TargetChoice, fix: string): string {
  switch (problem.kind) {
    case 'key':
      return `${url} refused the key: ${problem.reason}. Check the key and its subscriptions (KGATE_KEY, or the variable keyVariables.full names)`;
    case 'quota':
      return `${url}: ${problem.reason}: nothing can be judged with this key until then (use another key, or wait)`;
    case 'routing':
      return `${url} (from ${choice.source}): ${problem.reason}; ${fix}`;
    default:
      return `${url}: ${problem.reason}`;
  }
}

/** What a preflight problem is about, for the JSON error object. */
function problemSubject(problem: PreflightProblem, choice: TargetChoice): UsageSubject & { rule: string } {
  if (problem.kind === 'key' || problem.kind === 'quota')
    return {
      variable: 'KGATE_KEY',
      rule: problem.kind === 'key' ? 'holds a key the deployment accepts' : 'holds a key with quota left',
    };
  return { ...choice.subject, rule: 'names the base URL the interface is served at' };
}

/**
 * The run's report folder, made and proven writable: --report-dir itself, else a new run folder of
 * `kind`. One line naming the folder and the reason, exit 2, when it cannot be.
 */
export function writableFolder(given: string | undefined, kind: RunKind, command: string): string {
  let dir: string | undefined;
  try {
    dir = runFolder(given, kind, command);
    const probe = join(dir, `.kgate-write-check-${process.pid}`);
    writeFileSync(probe, '');
    rmSync(probe, { force: true });
    return dir;
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code
      ? `${(error as NodeJS.ErrnoException).code}: ${(error as Error).message.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/, '')}`
      : (error as Error).message;
    const folder = dir ?? given ?? `reports/${kind}/`;
    throw new UsageError(
      `cannot write this run's reports to ${folder} (${reason}); name a folder kgate can write with --report-dir`,
      { option: '--report-dir', rule: 'names a folder kgate can make and write', command },
    );
  }
}

/** Opens the door of a command: everything it can know before it sends anything. */
export function openDoor(spec: DoorSpec, parsed: Pick<ParsedArgs, 'values' | 'notes'> & { options: DoorGiven }): Door {
  return new Door(spec, parsed);
}
