import { resolve } from 'node:path';
import type { HarnessEnv } from '../../config/env.ts';
import { type ApiName, ConfigError, type KgateConfig, parseApiList } from '../../config/file.ts';
import { didYouMean } from '../../config/near-miss.ts';
import { parseQuota, QUOTA_RULE, type Quota, QuotaError } from '../../config/quota.ts';
import { CHECK_IDS } from '../../contracts/checks/index.ts';
import { OPERATIONS } from '../../openapi/spec.ts';
import { PLAYWRIGHT_REPORTERS } from '../../run/options.ts';
import { option, type ParsedArgs, RuleBroken, UsageError } from '../door/args.ts';
import { configUsageError } from '../door/config-error.ts';
import { NETWORK_OPTIONS } from '../door/network.ts';
import { MAX_RPS_LIMIT, sharedOptions } from '../door/vocabulary.ts';

/** --max-rps-by-path's rule, with its unit. */
const BY_PATH_RULE = `PATH=R pairs separated by commas, PATH a path of the spec and R a number of requests per second from 0.001 to ${MAX_RPS_LIMIT} (e.g. /academic/v1.0/calchistogram=0.1)`;

/** The options of `kgate conform` (its usage text describes each). */
export const CONFORM_OPTIONS = {
  ...sharedOptions('base-url'),
  grep: option.text('a regular expression matched against test titles (operation labels, check ids)', '(', (raw) => {
    try {
      new RegExp(raw);
    } catch (error) {
      throw new RuleBroken((error as Error).message.replace(/^Invalid regular expression: /, ''));
    }
    return raw;
  }),
  checks: option.list('check ids', CHECK_IDS, 'contracts/README.md describes each'),
  'exclude-checks': option.list('check ids', CHECK_IDS, 'contracts/README.md describes each'),
  strict: option.flag(),
  ...sharedOptions('timeout', 'max-rps'),
  'max-rps-by-path': option.text(BY_PATH_RULE, '/academic/v1.0/evaluate=0', (raw) => parseMaxRpsByPath(raw)),
  ...sharedOptions('max-duration', 'max-requests'),
  quota: option.text(QUOTA_RULE, '10000/week', (raw) => {
    try {
      return parseQuota(raw);
    } catch (error) {
      if (error instanceof QuotaError) throw new RuleBroken(error.message);
      throw error;
    }
  }),
  ledger: option.path('file'),
  workers: option.whole(1, 64, 'worker processes'),
  'with-rate-limit': option.flag(),
  shard: option.text('I/N, shard I of N with 1 <= I <= N, such as 1/4', '5/4', (raw) => parseShard(raw)),
  baseline: option.path('file'),
  'update-baseline': option.flag(),
  generate: option.whole(0, 100_000, 'generated requests'),
  seed: option.whole(0, 2 ** 32 - 1),
  ...sharedOptions('report-dir', 'config', 'json'),
  'playwright-report': option.flag(),
  ...NETWORK_OPTIONS,
  'playwright-reporter': option.choice(PLAYWRIGHT_REPORTERS),
};

/** Reads a Playwright shard `I/N`. */
export function parseShard(raw: string): { current: number; total: number } {
  const match = /^(\d+)\/(\d+)$/.exec(raw.trim());
  if (!match) throw new RuleBroken('not I/N');
  const [current, total] = [Number(match[1]), Number(match[2])];
  if (current < 1 || current > total) throw new RuleBroken(`shard ${current} of ${total} does not exist`);
  return { current, total };
}

/** The paths of the spec, which --max-rps-by-path and maxRpsByPath name. */
export const SPEC_PATHS: readonly string[] = [...new Set(OPERATIONS.map((op) => op.path))];

/** The parsed options of `kgate conform`. */
export type ConformGiven = ParsedArgs<typeof CONFORM_OPTIONS>['options'];

/**
 * What `kgate conform` runs with beyond what the door resolves (its target, keys, route, limits),
 * after flags, environment and configuration file are merged.
 */
export interface ConformSettings {
  /** The APIs the unsubscribed key covers, when known. */
  covers?: ApiName[];
  checks?: string[];
  /** --exclude-checks (or the file's), plus every check whose severity is `off`. */
  excludeChecks?: string[];
  /** Severity overrides other than `off`. */
  severity?: Record<string, 'fail' | 'warn'>;
  strict: boolean;
  /** Requests per second to a path of the spec. */
  maxRpsByPath?: Record<string, number>;
  /** Absolute path of the baseline file. */
  baseline?: string;
  updateBaseline: boolean;
  /** --quota or quota: the deployment's request quota (the run's request budget is then what the month has left, at most --max-requests). */
  quota?: Quota;
  /** --ledger or ledger: the coverage ledger file, absolute. */
  ledger?: string;
  /** latencyBudgetMs of the configuration file. */
  latencyBudgetMs?: Record<string, number>;
  /** envelope of the configuration file: bounds on what the run measures. */
  envelopeBounds?: NonNullable<KgateConfig['envelope']>;
}

/** Reads --max-rps-by-path: `PATH=R` pairs separated by commas, each PATH a path of the spec; throws RuleBroken. */
export function parseMaxRpsByPath(raw: string): Record<string, number> {
  const byPath: Record<string, number> = {};
  for (const pair of raw.split(',')) {
    const at = pair.lastIndexOf('=');
    const path = pair.slice(0, Math.max(at, 0)).trim();
    const text = pair.slice(at + 1).trim();
    const rate = Number(text);
    if (at < 0 || text === '') throw new RuleBroken(`'${pair.trim()}' is not PATH=R`);
    if (!Number.isFinite(rate)) throw new RuleBroken(`'${text}' is not a number`);
    if (rate < 0.001 || rate > MAX_RPS_LIMIT) throw new RuleBroken(`${rate} requests per second is out of range`);
    if (!SPEC_PATHS.includes(path)) {
      const near = didYouMean(path, SPEC_PATHS);
      throw new RuleBroken(`unknown path '${path}'; ${near || `paths of the spec: ${SPEC_PATHS.join(', ')}`}`);
    }
    if (path in byPath) throw new RuleBroken(`path '${path}' is given twice`);
    byPath[path] = rate;
  }
  return byPath;
}

/**
 * Merges the sources of a conform run's own settings (the door resolves the target, keys, route
 * and limits): a flag wins over the environment, which wins over the configuration file
 * (KGATE_KEY_UNSUBSCRIBED_COVERS over `unsubscribedKeyCovers`). Throws UsageError naming the
 * option, variable or key at fault.
 */
export function resolveConformSettings(
  given: ConformGiven,
  env: HarnessEnv,
  config: KgateConfig,
  options: { cwd?: string } = {},
): ConformSettings {
  let covers: ApiName[] | undefined;
  try {
    covers = env.keyUnsubscribedCovers
      ? parseApiList(env.keyUnsubscribedCovers, 'KGATE_KEY_UNSUBSCRIBED_COVERS')
      : config.unsubscribedKeyCovers;
  } catch (error) {
    if (error instanceof ConfigError) throw configUsageError(error, 'conform');
    throw error;
  }
  const overrides = Object.entries(config.severity ?? {});
  const off = overrides.filter(([, level]) => level === 'off').map(([id]) => id);
  const severity = Object.fromEntries(overrides.filter(([, level]) => level !== 'off')) as Record<
    string,
    'fail' | 'warn'
  >;
  const excluded = given['exclude-checks'] ?? config.excludeChecks;
  const excludeChecks = [...new Set([...(excluded ?? []), ...off])];
  const baselineFlag = given.baseline;
  const baseline = baselineFlag !== undefined ? resolve(options.cwd ?? process.cwd(), baselineFlag) : config.baseline;
  const updateBaseline = given['update-baseline'] === true;
  const quota = given.quota ?? (config.quota !== undefined ? parseQuota(config.quota) : undefined);
  if (updateBaseline && baseline === undefined)
    throw new UsageError(
      'option --update-baseline needs --baseline FILE (or baseline in the configuration file): the file to write',
      { option: '--update-baseline', rule: 'needs --baseline FILE' },
    );
  return {
    covers,
    checks: given.checks ?? config.checks,
    excludeChecks: excludeChecks.length > 0 ? excludeChecks : undefined,
    severity: Object.keys(severity).length > 0 ? severity : undefined,
    strict: given.strict === true || config.strict === true,
    maxRpsByPath:
      given['max-rps-by-path'] ??
      (config.maxRpsByPath && Object.keys(config.maxRpsByPath).length > 0 ? config.maxRpsByPath : undefined),
    baseline,
    updateBaseline,
    latencyBudgetMs:
      config.latencyBudgetMs && Object.keys(config.latencyBudgetMs).length > 0 ? config.latencyBudgetMs : undefined,
    ...(config.envelope ? { envelopeBounds: config.envelope } : {}),
    ...(quota ? { quota } : {}),
    ledger: given.ledger !== undefined ? resolve(options.cwd ?? process.cwd(), given.ledger) : config.ledger,
  };
}
