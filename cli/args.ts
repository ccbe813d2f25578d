import { type ParseArgsConfig, parseArgs } from 'node:util';

/** Bad command-line input: printed as one line naming the option and the rule, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Exit codes shared by every command. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

type Options = NonNullable<ParseArgsConfig['options']>;

/** The parsed options and positionals of one command line. */
export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  positionals: string[];
}

/**
 * Parses argv strictly: an unknown option or a missing value becomes a UsageError whose
 * message names the option and what it takes.
 */
export function parseCommandArgs(argv: string[], options: Options, command: string): ParsedArgs {
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    return { values: values as ParsedArgs['values'], positionals };
  } catch (error) {
    throw new UsageError(`kgate ${command}: ${describeParseError(error, options)}`);
  }
}

function describeParseError(error: unknown, options: Options): string {
  const message = error instanceof Error ? error.message : String(error);
  const unknown = /Unknown option '([^']+)'/.exec(message);
  if (unknown) {
    const known = Object.keys(options)
      .map((name) => `--${name}`)
      .join(', ');
    return `unknown option ${unknown[1]} (known options: ${known})`;
  }
  const missing = /Option '([^']+)' argument missing/.exec(message);
  if (missing) return `option ${missing[1].split(',').pop()?.trim()} needs a value`;
  const notString = /Option '([^']+)' argument is ambiguous/.exec(message);
  if (notString) return `option ${notString[1]} needs a value, not another option`;
  return message.split('\n')[0] ?? message;
}

/** Reads an optional string option. */
export function stringOption(values: ParsedArgs['values'], name: string): string | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new UsageError(`option --${name} takes a value`);
  return value;
}

/** Reads an integer option within [min, max]; the message names the option and the range. */
export function intOption(
  values: ParsedArgs['values'],
  name: string,
  range: { min: number; max: number },
  fallback?: number,
): number | undefined {
  const raw = stringOption(values, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < range.min || value > range.max) {
    throw new UsageError(`option --${name} takes a whole number from ${range.min} to ${range.max}, got '${raw}'`);
  }
  return value;
}

/** Reads a decimal number option within [min, max]. */
export function numberOption(
  values: ParsedArgs['values'],
  name: string,
  range: { min: number; max: number },
  fallback?: number,
): number | undefined {
  const raw = stringOption(values, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < range.min || value > range.max) {
    throw new UsageError(`option --${name} takes a number from ${range.min} to ${range.max}, got '${raw}'`);
  }
  return value;
}

/** Reads a duration such as 500ms, 30s, 2m or a bare number of seconds; returns milliseconds. */
export function durationOption(
  values: ParsedArgs['values'],
  name: string,
  range: { minMs: number; maxMs: number },
  fallbackMs?: number,
): number | undefined {
  const raw = stringOption(values, name);
  if (raw === undefined) return fallbackMs;
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(raw.trim());
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
  const ms = match ? Number(match[1]) * unit[(match[2] ?? 's') as keyof typeof unit] : Number.NaN;
  if (!Number.isFinite(ms) || ms < range.minMs || ms > range.maxMs) {
    throw new UsageError(
      `option --${name} takes a duration such as 500ms, 30s or 2m between ${range.minMs} ms and ${range.maxMs} ms, got '${raw}'`,
    );
  }
  return ms;
}

/** Reads an http(s) URL option; the path may carry a prefix, which is kept without a trailing slash. */
export function urlOption(values: ParsedArgs['values'], name: string): string | undefined {
  const raw = stringOption(values, name);
  if (raw === undefined) return undefined;
  return parseBaseUrl(raw, `option --${name}`);
}

/** Validates a base URL given on the command line or in the environment. */
export function parseBaseUrl(raw: string, source: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${source} takes an absolute http(s) URL such as http://127.0.0.1:8080, got '${raw}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${source} takes an http or https URL, got protocol '${url.protocol}'`);
  }
  if (url.search || url.hash) throw new UsageError(`${source} takes a base URL without query or fragment`);
  return url.toString().replace(/\/+$/, '');
}

/**
 * The target of a command: --base-url, else KGATE_BASE_URL, else undefined (meaning the embedded
 * reference server). Either source is validated the same way.
 */
export function targetBaseUrl(values: ParsedArgs['values'], envBaseUrl: string | undefined): string | undefined {
  return urlOption(values, 'base-url') ?? (envBaseUrl ? parseBaseUrl(envBaseUrl, 'KGATE_BASE_URL') : undefined);
}

/** Reads a comma-separated list option. */
export function listOption(values: ParsedArgs['values'], name: string): string[] | undefined {
  const raw = stringOption(values, name);
  if (raw === undefined) return undefined;
  const items = raw
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  if (items.length === 0) throw new UsageError(`option --${name} takes a comma-separated list, got '${raw}'`);
  return items;
}

/** Rejects surplus positionals, naming the first one. */
export function noPositionals(positionals: string[], command: string): void {
  if (positionals.length > 0) {
    throw new UsageError(`kgate ${command}: unexpected argument '${positionals[0]}' (see kgate ${command} --help)`);
  }
}
