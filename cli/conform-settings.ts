import { resolve } from 'node:path';
import { type HarnessEnv, readKeys } from '../config/env.ts';
import { type ApiName, ConfigError, type KgateConfig, parseApiList } from '../config/file.ts';
import type { Keys } from '../contracts/api.ts';
import { CHECK_IDS } from '../contracts/checks/index.ts';
import { OPERATIONS } from '../openapi/spec.ts';
import { DEFAULT_TIMEOUT_MS } from '../run/options.ts';
import {
  durationOption,
  intOption,
  listOption,
  numberOption,
  type ParsedArgs,
  parseBaseUrl,
  stringOption,
  UsageError,
  urlOption,
} from './args.ts';
import { NETWORK_OPTIONS } from './network.ts';

/** Largest --max-rps / maxRps accepted. */
export const MAX_RPS_LIMIT = 10_000;
/** The options of `kgate conform` (its usage text describes each). */
export const CONFORM_OPTIONS = {
  'base-url': { type: 'string' },
  grep: { type: 'string' },
  checks: { type: 'string' },
  'exclude-checks': { type: 'string' },
  strict: { type: 'boolean' },
  timeout: { type: 'string' },
  'max-rps': { type: 'string' },
  'max-rps-by-path': { type: 'string' },
  'max-duration': { type: 'string' },
  'max-requests': { type: 'string' },
  ledger: { type: 'string' },
  workers: { type: 'string' },
  'with-rate-limit': { type: 'boolean' },
  shard: { type: 'string' },
  baseline: { type: 'string' },
  'update-baseline': { type: 'boolean' },
  generate: { type: 'string' },
  seed: { type: 'string' },
  'report-dir': { type: 'string' },
  config: { type: 'string' },
  json: { type: 'boolean' },
  'playwright-report': { type: 'boolean' },
  ...NETWORK_OPTIONS,
  'playwright-reporter': { type: 'string' },
} as const;

/** The paths of the spec, which --max-rps-by-path and maxRpsByPath name. */
export const SPEC_PATHS: readonly string[] = [...new Set(OPERATIONS.map((op) => op.path))];

/** What `kgate conform` runs with, after flags, environment and configuration file are merged. */
export interface ConformSettings {
  /** The target; undefined: the embedded reference server. */
  baseUrl?: string;
  keys: Keys;
  /** Key variables the configuration file names that are not set (their checks will skip). */
  unsetKeyVariables: string[];
  /** The APIs the unsubscribed key covers, when known. */
  covers?: ApiName[];
  checks?: string[];
  /** --exclude-checks (or the file's), plus every check whose severity is `off`. */
  excludeChecks?: string[];
  /** Severity overrides other than `off`. */
  severity?: Record<string, 'fail' | 'warn'>;
  strict: boolean;
  timeoutMs: number;
  maxRps?: number;
  /** Requests per second to a path of the spec. */
  maxRpsByPath?: Record<string, number>;
  /** Absolute path of the baseline file. */
  baseline?: string;
  updateBaseline: boolean;
  /** --max-duration or maxDuration, in milliseconds; undefined: the default derived from the estimate. */
  maxDurationMs?: number;
  /** --max-requests or maxRequests: the run's request budget. */
  maxRequests?: number;
  /** --ledger or ledger: the coverage ledger file, absolute. */
  ledger?: string;
  /** latencyBudgetMs of the configuration file. */
  latencyBudgetMs?: Record<string, number>;
}

/** Reads --ledger: a file path, resolved against the working directory. */
function ledgerOption(values: ParsedArgs['values'], cwd = process.cwd()): string | undefined {
  const raw = stringOption(values, 'ledger');
  if (raw === undefined) return undefined;
  if (raw.trim() === '') throw new UsageError('option --ledger takes a file path, got an empty string');
  return resolve(cwd, raw);
}

/** Longest --max-duration accepted. */
export const MAX_DURATION_LIMIT_MS = 24 * 3_600_000;

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

/** Reads --max-rps-by-path: `PATH=R` pairs separated by commas, each PATH a path of the spec. */
export function maxRpsByPathOption(values: ParsedArgs['values']): Record<string, number> | undefined {
  const raw = stringOption(values, 'max-rps-by-path');
  if (raw === undefined) return undefined;
  const byPath: Record<string, number> = {};
  for (const pair of raw.split(',')) {
    const at = pair.lastIndexOf('=');
    const path = pair.slice(0, Math.max(at, 0)).trim();
    const rate = Number(pair.slice(at + 1).trim());
    if (at < 0 || pair.slice(at + 1).trim() === '' || !Number.isFinite(rate) || rate < 0.001 || rate > MAX_RPS_LIMIT)
      throw new UsageError(
        `option --max-rps-by-path takes PATH=R pairs separated by commas, R a number from 0.001 to ${MAX_RPS_LIMIT} (e.g. /academic/v1.0/calchistogram=0.1), got '${pair}'`,
      );
    if (!SPEC_PATHS.includes(path))
      throw new UsageError(
        `option --max-rps-by-path: unknown path '${path}' (paths of the spec: ${SPEC_PATHS.join(', ')})`,
      );
    if (path in byPath) throw new UsageError(`option --max-rps-by-path: path '${path}' is given twice`);
    byPath[path] = rate;
  }
  return byPath;
}

/**
 * Merges the sources of a conform run: a flag wins over the environment, which wins over the
 * configuration file (KGATE_BASE_URL over `baseUrl`, KGATE_KEY* over the variables `keyVariables`
 * names, KGATE_KEY_UNSUBSCRIBED_COVERS over `unsubscribedKeyCovers`). Throws UsageError naming
 * the option, variable or key at fault.
 */
export function resolveConformSettings(
  values: ParsedArgs['values'],
  env: HarnessEnv,
  config: KgateConfig,
  options: { processEnv?: NodeJS.ProcessEnv; cwd?: string } = {},
): ConformSettings {
  const baseUrl =
    urlOption(values, 'base-url') ?? (env.baseUrl ? parseBaseUrl(env.baseUrl, 'KGATE_BASE_URL') : config.baseUrl);
  const { keys, unset } = readKeys(config.keyVariables, options.processEnv);
  let covers: ApiName[] | undefined;
  try {
    covers = env.keyUnsubscribedCovers
      ? parseApiList(env.keyUnsubscribedCovers, 'KGATE_KEY_UNSUBSCRIBED_COVERS')
      : config.unsubscribedKeyCovers;
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(`kgate conform: ${error.message}`);
    throw error;
  }
  const overrides = Object.entries(config.severity ?? {});
  const off = overrides.filter(([, level]) => level === 'off').map(([id]) => id);
  const severity = Object.fromEntries(overrides.filter(([, level]) => level !== 'off')) as Record<
    string,
    'fail' | 'warn'
  >;
  const excluded = validateCheckIds(listOption(values, 'exclude-checks'), 'exclude-checks') ?? config.excludeChecks;
  const excludeChecks = [...new Set([...(excluded ?? []), ...off])];
  const baselineFlag = stringOption(values, 'baseline');
  if (baselineFlag !== undefined && baselineFlag.trim() === '')
    throw new UsageError('option --baseline takes a file path, got an empty string');
  const baseline = baselineFlag !== undefined ? resolve(options.cwd ?? process.cwd(), baselineFlag) : config.baseline;
  const updateBaseline = values['update-baseline'] === true;
  if (updateBaseline && baseline === undefined)
    throw new UsageError(
      'option --update-baseline needs --baseline FILE (or baseline in the configuration file): the file to write',
    );
  return {
    baseUrl,
    keys,
    unsetKeyVariables: unset,
    covers,
    checks: validateCheckIds(listOption(values, 'checks'), 'checks') ?? config.checks,
    excludeChecks: excludeChecks.length > 0 ? excludeChecks : undefined,
    severity: Object.keys(severity).length > 0 ? severity : undefined,
    strict: values.strict === true || config.strict === true,
    timeoutMs: intOption(values, 'timeout', { min: 100, max: 600_000 }) ?? config.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRps: numberOption(values, 'max-rps', { min: 0.001, max: MAX_RPS_LIMIT }) ?? config.maxRps,
    maxRpsByPath:
      maxRpsByPathOption(values) ??
      (config.maxRpsByPath && Object.keys(config.maxRpsByPath).length > 0 ? config.maxRpsByPath : undefined),
    baseline,
    updateBaseline,
    maxDurationMs:
      durationOption(values, 'max-duration', { minMs: 1_000, maxMs: MAX_DURATION_LIMIT_MS }) ??
      (config.maxDuration === undefined ? undefined : config.maxDuration * 1000),
    latencyBudgetMs:
      config.latencyBudgetMs && Object.keys(config.latencyBudgetMs).length > 0 ? config.latencyBudgetMs : undefined,
    maxRequests: intOption(values, 'max-requests', { min: 1, max: 1_000_000 }) ?? config.maxRequests,
    ledger: ledgerOption(values, options.cwd) ?? config.ledger,
  };
}
