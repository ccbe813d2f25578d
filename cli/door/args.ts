// The command line of every kgate command: each command declares its options once, in a table of
// OptionSpec (what the option takes, the rule in words with its unit, a parser, a value that breaks
// the rule), and parseCommandArgs reads argv against it. Every option's value is checked there, before
// the command does anything, so a bad value is one line naming the option, the rule and the unit, with
// exit code 2, for every option of every command alike; an unknown option gets its near misses.
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { DurationError, describeDuration, formatDuration, parseDuration } from '../../config/duration.ts';
import { didYouMean, nearMisses } from '../../config/near-miss.ts';

/** What a usage error is about: an option, a key of the configuration file, an environment variable or an argument. */
export interface UsageSubject {
  /** `--max-rps` */
  option?: string;
  /** `maxRps`, `keyVariables.full` */
  key?: string;
  /** The configuration file of the key. */
  file?: string;
  /** `KGATE_BASE_URL` */
  variable?: string;
  /** A positional argument (a scenario, a mode, a file). */
  argument?: string;
}

/** The details of a usage error beyond its line: its subject, the rule broken and a near miss. */
export interface UsageDetails extends UsageSubject {
  /** The rule in words, as the line says it after the subject (`takes a whole number from 1 to 64`). */
  rule?: string;
  /** What was most likely meant (`--max-rps`, `maxRps`). */
  suggestion?: string;
  /** The command (`drift live`) the line is about, when it is not the one kgate was started with. */
  command?: string;
}

/** Bad command-line input: printed as one line naming the option and the rule, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
  readonly details: UsageDetails;
  constructor(message: string, details: UsageDetails = {}) {
    super(message);
    this.details = details;
  }
}

/**
 * The target (or the proxy, TLS, a front server, the key) stopped a command before it could judge
 * anything: one line, exit code 2, like a usage error; `option` names the option that pointed there.
 */
export class TargetError extends Error {
  override name = 'TargetError';
  readonly details: UsageDetails;
  constructor(message: string, details: UsageDetails = {}) {
    super(message);
    this.details = details;
  }
}

/** Exit codes shared by every command. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** A value that breaks an option's rule; the message is the reason (`out of range`). */
export class RuleBroken extends Error {
  override name = 'RuleBroken';
}

/**
 * One option of a command: what parseArgs reads, the rule in words (with its unit), how a value is
 * read, and a value that breaks the rule. An entry with only `type` (a plain parseArgs option) takes
 * any value that is not empty.
 */
export interface OptionSpec<T = unknown> {
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
  /** The rule a value follows, after "takes" (`a whole number of workers from 1 to 64`). */
  rule?: string;
  /** Reads a value; throws RuleBroken with the reason when it breaks the rule. */
  parse?: (raw: string) => T;
  /** A value that breaks the rule (every option is driven with it by the tests). */
  invalid?: string;
  /** The value may hold a secret (a password, a header value): messages never repeat it. */
  secret?: boolean;
  /**
   * A renamed option's old spelling: its value is read by the rule of the option it names and given
   * to that option, with a one-line note (ParsedArgs.notes); giving both is refused.
   */
  renamedTo?: string;
  /** What the new name means, for the note of an old spelling (`at most N requests in the whole run`). */
  meaning?: string;
  /** The old spelling's value as the new option reads it, where their meanings differ (the other options' values at hand). */
  carry?: (value: unknown, others: Record<string, unknown>) => unknown;
}

/** A switch's spec. */
export type FlagSpec = OptionSpec<boolean> & { type: 'boolean' };
/** The spec of an option with a value read by `parse`. */
export type ValueSpec<T> = OptionSpec<T> & { type: 'string'; parse: (raw: string) => T };

/** A command's options by name (without the leading `--`). */
export type OptionTable = Record<string, OptionSpec<unknown>>;

/** The value an option of a table yields once parsed. */
export type OptionValue<S> = S extends { type: 'boolean' }
  ? boolean
  : S extends { parse: (raw: string) => infer T }
    ? S extends { multiple: true }
      ? T[]
      : T
    : S extends { multiple: true }
      ? string[]
      : string;

/** The parsed options and positionals of one command line. */
export interface ParsedArgs<O extends OptionTable = OptionTable> {
  /** The values as given (strings and booleans), by option name. */
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  positionals: string[];
  /** The values as read by each option's parser; an option not given is absent (an old spelling's under its new name). */
  options: { [K in keyof O]?: OptionValue<O[K]> };
  /** One line for each old spelling given: what it is called now. */
  notes: string[];
}

/** The rule of an option as a message says it after the option's name. */
export function ruleOf(spec: OptionSpec<unknown>): string {
  if (spec.type === 'boolean') return 'is a switch and takes no value';
  return `takes ${spec.rule ?? 'a value that is not empty'}`;
}

/** A value that breaks an option's rule (its own, else an empty one, which no option takes). */
export function invalidValueOf(spec: OptionSpec<unknown>): string {
  return spec.invalid ?? (spec.type === 'boolean' ? 'yes' : '');
}

/** Reads one value of an option by its spec; throws UsageError naming the option, the rule and the value. */
function readValue(name: string, spec: OptionSpec<unknown>, raw: string): unknown {
  try {
    if (spec.parse) return spec.parse(raw);
    if (raw.trim() === '') throw new RuleBroken('an empty value');
    return raw;
  } catch (error) {
    if (!(error instanceof RuleBroken)) throw error;
    const rule = ruleOf(spec);
    const got = spec.secret ? '' : `, got '${raw}'`;
    throw new UsageError(`option --${name} ${rule}${got} (${error.message})`, { option: `--${name}`, rule });
  }
}

/**
 * Joins `--opt -3` into `--opt=-3` for a string option followed by a negative number, so that such a
 * value is judged by the option's rule (out of range) instead of being taken for another option.
 */
function joinNegativeValues(argv: string[], options: OptionTable): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const name = /^--([^=]+)$/.exec(token)?.[1];
    const next = argv[i + 1];
    if (name && options[name]?.type === 'string' && next !== undefined && /^-(\d|\.\d)/.test(next)) {
      out.push(`${token}=${next}`);
      i++;
    } else out.push(token);
  }
  return out;
}

/** Options of sibling subcommands (`kgate probe rate-limit` for `kgate probe body-limit`), for a better word on a misplaced one. */
export type Siblings = Record<string, OptionTable>;

/**
 * Parses argv strictly against a command's option table: an unknown option (with its near misses),
 * a missing value, a value for a switch, or a value that breaks an option's rule becomes a UsageError
 * whose line names the option and the rule. `command` is the command's name in messages (`drift live`).
 */
export function parseCommandArgs<O extends OptionTable>(
  argv: string[],
  options: O,
  command: string,
  siblings: Siblings = {},
): ParsedArgs<O> {
  const config: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, spec] of Object.entries(options))
    config[name] = {
      type: spec.type,
      ...(spec.multiple ? { multiple: true } : {}),
      ...(spec.short ? { short: spec.short } : {}),
    };
  let parsed: { values: ParsedArgs['values']; positionals: string[] };
  try {
    parsed = parseArgs({
      args: joinNegativeValues(argv, options),
      options: config,
      allowPositionals: true,
      strict: true,
    }) as typeof parsed;
  } catch (error) {
    throw describeParseError(error, options, command, siblings);
  }
  const read: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(options)) {
    const given = parsed.values[name];
    if (given === undefined || spec.type === 'boolean') {
      if (given !== undefined) read[name] = Array.isArray(given) ? given.length > 0 : given;
      continue;
    }
    read[name] = Array.isArray(given)
      ? given.map((raw) => readValue(name, spec, String(raw)))
      : readValue(name, spec, String(given));
  }
  const notes: string[] = [];
  for (const [old, spec] of Object.entries(options)) {
    if (spec.renamedTo === undefined || read[old] === undefined) continue;
    const now = spec.renamedTo;
    if (read[now] !== undefined)
      throw new UsageError(`option --${old} is the old name of --${now}: give --${now} alone`, {
        option: `--${old}`,
        rule: `is the old name of --${now}`,
        suggestion: `--${now}`,
        command,
      });
    read[now] = spec.carry ? spec.carry(read[old], read) : read[old];
    delete read[old];
    notes.push(
      `kgate ${command}: note: --${old} is now --${now}${spec.meaning ? ` (${spec.meaning})` : ''}; the old name goes in the next release`,
    );
  }
  return {
    values: parsed.values,
    positionals: parsed.positionals,
    options: read as ParsedArgs<O>['options'],
    notes,
  };
}

/**
 * Old spellings of the shared options, across every command: an unknown option spelled so is
 * answered with the name this command gives it (`--budget`: kgate conform calls it --max-requests).
 */
export const OLD_NAMES: Readonly<Record<string, string>> = {
  budget: 'max-requests',
  requests: 'max-requests',
  'request-budget': 'max-requests',
  rate: 'max-rps',
  'max-rate': 'max-rps',
  rps: 'max-rps',
  duration: 'max-duration',
  'time-limit': 'max-duration',
  deadline: 'timeout',
  url: 'base-url',
  target: 'base-url',
  output: 'report-dir',
  out: 'report-dir',
};

function describeParseError(error: unknown, options: OptionTable, command: string, siblings: Siblings): UsageError {
  const message = error instanceof Error ? error.message : String(error);
  const unknown = /Unknown option '([^']+)'/.exec(message)?.[1];
  if (unknown) {
    const name = unknown.replace(/^-+/, '').split('=')[0]!;
    const elsewhere = Object.entries(siblings).find(([sub, table]) => sub !== command && name in table)?.[0];
    if (elsewhere) {
      const rule = `belongs to kgate ${elsewhere}, not to kgate ${command}`;
      return new UsageError(`option --${name} ${rule}`, { option: `--${name}`, rule, command });
    }
    const known = Object.keys(options).filter((option) => options[option]!.renamedTo === undefined);
    const now = OLD_NAMES[name];
    if (now !== undefined && now in options) {
      const rule = `is not an option of kgate ${command}`;
      return new UsageError(`unknown option ${unknown}: kgate ${command} calls it --${now}`, {
        option: unknown,
        rule,
        command,
        suggestion: `--${now}`,
      });
    }
    const near = nearMisses(name, known);
    const rule = `is not an option of kgate ${command}`;
    const hint =
      near.length > 0
        ? `: ${didYouMean(name, known, '--')} (kgate ${command} --help lists every option)`
        : ` (known options: ${known.map((option) => `--${option}`).join(', ')})`;
    return new UsageError(`unknown option ${unknown}${hint}`, {
      option: unknown,
      rule,
      command,
      ...(near[0] ? { suggestion: `--${near[0]}` } : {}),
    });
  }
  const missing = /Option '([^']+)' argument missing/.exec(message)?.[1];
  const ambiguous = /Option '([^']+)' argument is ambiguous/.exec(message)?.[1];
  const flag = missing ?? ambiguous;
  if (flag) {
    const name = flag
      .replace(/ <value>$/, '')
      .split(',')
      .pop()!
      .trim()
      .replace(/^-+/, '');
    const spec = options[name];
    const rule = spec ? ruleOf(spec) : 'takes a value';
    const why = ambiguous ? `, not another option (to give a value that starts with -, write --${name}=VALUE)` : '';
    return new UsageError(`option --${name} needs a value: it ${rule}${why}`, { option: `--${name}`, rule, command });
  }
  const switchValue = /Option '([^']+)' does not take an argument/.exec(message)?.[1];
  if (switchValue) {
    const name = switchValue.split(',').pop()!.trim().replace(/^-+/, '').split('=')[0]!;
    const rule = 'is a switch and takes no value';
    return new UsageError(`option --${name} ${rule} (give --${name} alone, or leave it out)`, {
      option: `--${name}`,
      rule,
      command,
    });
  }
  return new UsageError(message.split('\n')[0] ?? message, { command });
}

/** Builders of option specs: each states its rule in words, with its unit and range, once. */
export const option = {
  /** A switch: present or not. */
  flag(): FlagSpec {
    return { type: 'boolean' };
  },
  /** Any value that is not empty, under a rule of the caller's, read by `parse` (which throws RuleBroken). */
  text<T = string>(rule: string, invalid: string, parse?: (raw: string) => T): ValueSpec<T> {
    return {
      type: 'string',
      rule,
      invalid,
      parse: (raw) => {
        if (raw.trim() === '') throw new RuleBroken('an empty value');
        return parse ? parse(raw) : (raw as T);
      },
    };
  },
  /** A whole number in [min, max], of `unit` (`requests`, `workers`), or a rule of its own in words. */
  whole(min: number, max: number, unit?: string | { rule: string }): ValueSpec<number> {
    return {
      type: 'string',
      rule: typeof unit === 'object' ? unit.rule : `a whole number${unit ? ` of ${unit}` : ''} from ${min} to ${max}`,
      invalid: String(min - 1),
      parse: (raw) => {
        const value = Number(raw.trim());
        if (!/^[-+]?\d+$/.test(raw.trim()) || !Number.isSafeInteger(value)) throw new RuleBroken('not a whole number');
        if (value < min || value > max) throw new RuleBroken('out of range');
        return value;
      },
    };
  },
  /** A decimal number in [min, max], of `unit` (`requests per second`). */
  decimal(min: number, max: number, unit?: string): ValueSpec<number> {
    return {
      type: 'string',
      rule: `a number${unit ? ` of ${unit}` : ''} from ${min} to ${max}`,
      invalid: '-3',
      parse: (raw) => {
        const value = Number(raw.trim());
        if (raw.trim() === '' || !Number.isFinite(value)) throw new RuleBroken('not a number');
        if (value < min || value > max) throw new RuleBroken('out of range');
        return value;
      },
    };
  },
  /** A duration with a unit (`500ms`, `10s`, `2m`; a bare number is refused with the unit it needs), read as milliseconds. */
  duration(minMs: number, maxMs: number): ValueSpec<number> {
    const rule = { minMs, maxMs };
    return {
      type: 'string',
      rule: describeDuration(rule),
      invalid: '10parsecs',
      parse: (raw) => {
        try {
          return parseDuration(raw, rule);
        } catch (error) {
          if (error instanceof DurationError) throw new RuleBroken(error.message);
          throw error;
        }
      },
    };
  },
  /** An absolute http(s) base URL, kept without a trailing slash. */
  url(): ValueSpec<string> {
    return {
      type: 'string',
      rule: URL_RULE,
      invalid: 'ftp://127.0.0.1',
      parse: (raw) => checkBaseUrl(raw),
    };
  },
  /** One of a few words. */
  choice<const T extends string>(values: readonly T[]): ValueSpec<T> {
    return {
      type: 'string',
      rule: `one of ${values.join(', ')}`,
      invalid: 'none-of-these',
      parse: (raw) => {
        if ((values as readonly string[]).includes(raw)) return raw as T;
        const near = didYouMean(raw, values);
        throw new RuleBroken(near || 'not one of them');
      },
    };
  },
  /** A comma-separated list of `what`, each one of `known` when given. */
  list(what: string, known?: readonly string[], where?: string): ValueSpec<string[]> {
    return {
      type: 'string',
      rule: `a comma-separated list of ${what}${where ? ` (${where})` : ''}`,
      invalid: known ? 'no-such-name' : ',',
      parse: (raw) => {
        const items = raw
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean);
        if (items.length === 0) throw new RuleBroken('an empty list');
        if (known) {
          const unknown = items.find((item) => !known.includes(item));
          if (unknown !== undefined) {
            const near = didYouMean(unknown, known);
            throw new RuleBroken(`unknown: '${unknown}'; ${near || `known: ${known.join(', ')}`}`);
          }
        }
        return [...new Set(items)];
      },
    };
  },
  /** The old spelling of option `now` (whose spec is `spec`): read by its rule, given to it, with a note. */
  renamed<T>(
    now: string,
    spec: ValueSpec<T>,
    meaning?: string,
    carry?: (value: T, others: Record<string, unknown>) => unknown,
  ): ValueSpec<T> & { renamedTo: string } {
    return {
      ...spec,
      renamedTo: now,
      ...(meaning ? { meaning } : {}),
      ...(carry ? { carry: carry as (value: unknown, others: Record<string, unknown>) => unknown } : {}),
    };
  },
  /** A path of a file or folder (not checked for existence here: the command says what it needs of it). */
  path(what: 'file' | 'folder'): ValueSpec<string> {
    return {
      type: 'string',
      rule: `a ${what} path`,
      invalid: '',
      parse: (raw) => {
        if (raw.trim() === '') throw new RuleBroken('an empty path');
        return raw;
      },
    };
  },
};

/** The rule of a base URL, in words. */
export const URL_RULE =
  'an absolute http or https URL such as http://127.0.0.1:8080 (a path prefix allowed, no query or fragment)';

/** Checks a base URL; throws RuleBroken with the reason. */
function checkBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RuleBroken('not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new RuleBroken(`protocol '${url.protocol.replace(/:$/, '')}' is not http or https`);
  if (url.search || url.hash) throw new RuleBroken('a base URL carries no query or fragment');
  return url.toString().replace(/\/+$/, '');
}

/** Validates a base URL given in the environment or elsewhere; `source` names it (`KGATE_BASE_URL`, `option --base-url`). */
export function parseBaseUrl(raw: string, source: string): string {
  try {
    return checkBaseUrl(raw);
  } catch (error) {
    if (!(error instanceof RuleBroken)) throw error;
    const rule = `takes ${URL_RULE}`;
    const subject = source.startsWith('option ') ? { option: source.slice(7) } : { variable: source };
    throw new UsageError(`${source} ${rule}, got '${raw}' (${error.message})`, { ...subject, rule });
  }
}

/** Reads an optional string option as given. */
export function stringOption(values: ParsedArgs['values'], name: string): string | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new UsageError(`option --${name} takes a value`, { option: `--${name}` });
  return value;
}

/** Rejects surplus positionals, naming the first one. */
export function noPositionals(positionals: string[], command: string): void {
  if (positionals.length > 0) {
    throw new UsageError(`unexpected argument '${positionals[0]}' (see kgate ${command} --help)`, {
      argument: positionals[0],
      rule: 'takes no arguments besides its options',
      command,
    });
  }
}

/** `10s` for people, the way a duration option is written. */
export { formatDuration };
