import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, resolve } from 'node:path';
import type { Ajv2020, ErrorObject } from 'ajv/dist/2020.js';

// ajv and yaml are loaded only when there is a configuration file to read: every kgate command
// reads this module, and loading both cost a few hundred milliseconds of each command's start.
const load = createRequire(import.meta.url);

import { NetworkConfigError, parseProxyUrl } from '../http/network.ts';
import { DurationError, parseDuration } from './duration.ts';
import { didYouMean, nearMisses } from './near-miss.ts';
import { parseQuota, QUOTA_RULE, QuotaError } from './quota.ts';

/** The files kgate looks for in the working directory when no --config is given, in this order. */
export const CONFIG_FILES = ['kgate.config.json', 'kgate.config.yaml', 'kgate.config.yml'] as const;
/** The JSON configuration file's name (the usual one). */
export const CONFIG_FILE = CONFIG_FILES[0];
/** Path of the JSON Schema of the configuration file (published with the package for editors). */
export const CONFIG_SCHEMA_PATH = new URL('./kgate.config.schema.json', import.meta.url);

/** The APIs a subscription can cover (similarity belongs to the academic API). */
export const APIS = ['academic', 'answerSearch', 'urlPreview', 'eventKnowledge'] as const;
/** One subscribable API. */
export type ApiName = (typeof APIS)[number];

/** What a configuration file may say about a check's weight; `off` removes the check from the run. */
export type SeverityOverride = 'fail' | 'warn' | 'off';

/** The key roles whose environment variable a configuration file may name. */
export type KeyRole = 'full' | 'unsubscribed' | 'exhausted' | 'against';

/** What kgate.config.json may hold (config/kgate.config.schema.json describes each key). */
export interface KgateConfig {
  /** Target base URL, without a trailing slash. */
  baseUrl?: string;
  /** kgate compare: the deployment the candidate replaces, without a trailing slash. */
  againstUrl?: string;
  /** kgate compare --latency: the regression threshold. */
  latencyThreshold?: { percent?: number; ms?: number };
  /** Names of the environment variables holding the keys (never the keys). */
  keyVariables?: Partial<Record<KeyRole, string>>;
  /** The APIs the unsubscribed key is subscribed to. */
  unsubscribedKeyCovers?: ApiName[];
  /** Only these checks run. */
  checks?: string[];
  /** These checks do not run. */
  excludeChecks?: string[];
  /** Per-check severity overrides. */
  severity?: Record<string, SeverityOverride>;
  /** Per-request deadline in milliseconds. */
  timeoutMs?: number;
  /** Requests per second over the whole run. */
  maxRps?: number;
  /** Requests per second to a path of the spec, over the whole run. */
  maxRpsByPath?: Record<string, number>;
  /** Baseline file, absolute (resolved against the configuration file's folder when read from a file). */
  baseline?: string;
  /** Warnings fail the gate. */
  strict?: boolean;
  /** The whole run's time limit, in seconds (the file may say it with a unit, `20m`; it is read as seconds). */
  maxDuration?: number;
  /** At most this many requests in the whole run. */
  maxRequests?: number;
  /** The deployment's request quota (`10000/month`), read by config/quota.ts. */
  quota?: string;
  /** The coverage ledger, absolute (resolved against the configuration file's folder). */
  ledger?: string;
  /** Per path of the spec, the longest an answer may take before latency-within-budget names it, in milliseconds. */
  latencyBudgetMs?: Record<string, number>;
  /** Bounds on the deployment's envelope (reporting/envelope.ts): a bound broken fails the gate. */
  envelope?: { urlLimitMin?: number; p95MsMax?: Record<string, number>; p99MsMax?: Record<string, number> };
  /** The forward proxy of every request (replaces HTTPS_PROXY, HTTP_PROXY, ALL_PROXY). */
  proxy?: string;
  /** Hosts reached without the proxy (replaces NO_PROXY). */
  noProxy?: string[];
  /** CA certificates (PEM) TLS trusts instead of Node's, absolute (resolved against the configuration file's folder). */
  caFile?: string;
  /** Client certificate (PEM) for mutual TLS, absolute. */
  clientCert?: string;
  /** The client certificate's key (PEM), absolute. */
  clientKey?: string;
  /** Headers of every request: names and values, or `Name: value` lines; `${NAME}` in a value reads a variable (cli/door/identity.ts). */
  headers?: Record<string, string> | string[];
  /** kgate load and kgate k6 bundle: the team's thresholds (k6's syntax, by operation id or `*`) and mix (weights by operation id). */
  load?: { thresholds?: Record<string, string | string[]>; mix?: Record<string, number> };
}

/** What a ConfigError is about: the file, the key (dotted: `keyVariables.full`), the rule broken, a near miss. */
export interface ConfigErrorDetails {
  file?: string;
  key?: string;
  /** The rule after the key (`must be >= 100 (milliseconds)`, `is not a key of the configuration file`). */
  rule?: string;
  /** The key most likely meant (`maxRps` for `maxRPS`). */
  suggestion?: string;
  /** The environment variable at fault, when the value came from one. */
  variable?: string;
}

/** A configuration file that cannot be used: the message names the file, the key and the rule. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  readonly details: ConfigErrorDetails;
  constructor(message: string, details: ConfigErrorDetails = {}) {
    super(message);
    this.details = details;
  }
}

type SchemaNode = {
  properties?: Record<string, unknown>;
  'x-kgate-rule'?: string;
  'x-kgate-unit'?: string;
  $ref?: string;
};

let schema: { $defs: Record<string, SchemaNode> } & SchemaNode;
let validate: ReturnType<Ajv2020['compile']> | undefined;

function compiled(): NonNullable<typeof validate> {
  if (validate) return validate;
  schema = JSON.parse(readFileSync(CONFIG_SCHEMA_PATH, 'utf8'));
  const { Ajv2020: Ajv } = load('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const ajv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true, verbose: true });
  // The rule each pattern stands for, in words: the message a person reads instead of a regex.
  ajv.addKeyword('x-kgate-rule');
  // The unit of a number (milliseconds, seconds, requests per second): every message about it names it.
  ajv.addKeyword('x-kgate-unit');
  validate = ajv.compile(schema);
  return validate;
}

/** The dotted name of the key an error is about (`keyVariables.full`, `checks.0`). */
function keyOf(error: ErrorObject): string {
  // instancePath is a JSON pointer: a key holding `/` or `~` is escaped there (`~1`, `~0`).
  return error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

/** The keywords of a number's range. */
const RANGE_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'];

/** The rule an error breaks, in words. */
function ruleOf(error: ErrorObject): string {
  const parent = error.parentSchema as SchemaNode | undefined;
  const rule =
    parent?.['x-kgate-rule'] ??
    (parent?.$ref ? schema.$defs[parent.$ref.split('/').pop()!]?.['x-kgate-rule'] : undefined);
  if ((error.keyword === 'pattern' || error.keyword === 'type') && rule) return rule;
  if (error.keyword === 'enum') {
    const allowed = (error.params.allowedValues as string[]).join(', ');
    return rule ? `${rule} (${allowed})` : `must be one of ${allowed}`;
  }
  if (error.keyword === 'uniqueItems') return 'must not list an item twice';
  const unit = parent?.['x-kgate-unit'];
  if (RANGE_KEYWORDS.includes(error.keyword)) {
    const bounds = parent as { minimum?: number; maximum?: number; exclusiveMinimum?: number };
    const low = bounds.minimum ?? bounds.exclusiveMinimum;
    const range =
      low === undefined || bounds.maximum === undefined
        ? (error.message ?? 'is out of range')
        : bounds.exclusiveMinimum !== undefined
          ? `must be more than ${low} and at most ${bounds.maximum}`
          : `must be from ${low} to ${bounds.maximum}`;
    return `${range}${unit ? ` ${unit}` : ''}`;
  }
  if (error.keyword === 'type' && unit) return `${error.message ?? 'has the wrong type'}: a number of ${unit}`;
  return error.message ?? 'is invalid';
}

/** Checks a parsed configuration against the schema; the first problem becomes one ConfigError line. */
export function parseConfig(value: unknown, source: string): KgateConfig {
  const check = compiled();
  if (!check(value)) {
    const error = check.errors![0]!;
    const key = keyOf(error);
    if (error.keyword === 'additionalProperties') {
      const unknown = String(error.params.additionalProperty);
      const known = Object.keys((error.parentSchema as SchemaNode).properties ?? {}).filter((k) => k !== '$schema');
      const dotted = `${key ? `${key}.` : ''}${unknown}`;
      const near = nearMisses(unknown, known);
      const hint =
        near.length > 0 ? didYouMean(unknown, known, key ? `${key}.` : '') : `known keys: ${known.join(', ')}`;
      throw new ConfigError(`${source}: unknown key '${dotted}' (${hint})`, {
        file: source,
        key: dotted,
        rule: 'is not a key of the configuration file',
        ...(near[0] ? { suggestion: `${key ? `${key}.` : ''}${near[0]}` } : {}),
      });
    }
    // A property name that breaks `propertyNames` (a severity for an unknown check id).
    const name = (error as ErrorObject & { propertyName?: string }).propertyName;
    if (name !== undefined) {
      const rule = `the name ${ruleOf(error)}`;
      throw new ConfigError(`${source}: key '${key}.${name}': ${rule}`, { file: source, key: `${key}.${name}`, rule });
    }
    const rule = ruleOf(error);
    // Numbers out of range are repeated; a string never is (a key put where its variable's name belongs).
    const got = RANGE_KEYWORDS.includes(error.keyword) ? `, got ${JSON.stringify(error.data)}` : '';
    throw new ConfigError(`${source}: key '${key || '(root)'}' ${rule}${got}`, {
      file: source,
      key: key || '(root)',
      rule,
    });
  }
  const config = value as KgateConfig & { $schema?: string };
  if (typeof config.maxDuration === 'string') {
    try {
      config.maxDuration = parseDuration(config.maxDuration, { minMs: 1_000, maxMs: 86_400_000, bare: 's' }) / 1000;
    } catch (error) {
      if (!(error instanceof DurationError)) throw error;
      const rule =
        'must be a duration with a unit, ms, s, m or h (such as 20m; a bare number is seconds), from 1s to 24h';
      throw new ConfigError(`${source}: key 'maxDuration' ${rule}, got '${config.maxDuration}' (${error.message})`, {
        file: source,
        key: 'maxDuration',
        rule,
      });
    }
  }
  if (config.quota !== undefined) {
    try {
      parseQuota(config.quota);
    } catch (error) {
      if (!(error instanceof QuotaError)) throw error;
      const rule = `must be ${QUOTA_RULE}`;
      throw new ConfigError(`${source}: key 'quota' ${rule}, got '${config.quota}' (${error.message})`, {
        file: source,
        key: 'quota',
        rule,
      });
    }
  }
  if (config.baseUrl !== undefined) config.baseUrl = checkedBaseUrl(config.baseUrl, source);
  if (config.againstUrl !== undefined) config.againstUrl = checkedBaseUrl(config.againstUrl, source, 'againstUrl');
  if (config.proxy !== undefined) {
    try {
      parseProxyUrl(config.proxy, `${source}: key 'proxy'`);
    } catch (error) {
      if (error instanceof NetworkConfigError)
        throw new ConfigError(error.message, {
          file: source,
          key: 'proxy',
          rule: error.message.split("key 'proxy' ")[1],
        });
      throw error;
    }
  }
  return config;
}

/** Parses a base URL from the file; the rule matches --base-url's. */
function checkedBaseUrl(raw: string, source: string, key = 'baseUrl'): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    const rule = 'must be an absolute http(s) URL such as https://api.example.org/prefix';
    throw new ConfigError(`${source}: key '${key}' ${rule}`, { file: source, key, rule });
  }
  if (url.search || url.hash) {
    const rule = 'must be a base URL without query or fragment';
    throw new ConfigError(`${source}: key '${key}' ${rule}`, { file: source, key, rule });
  }
  return url.toString().replace(/\/+$/, '');
}

/**
 * Reads the configuration: the given file (which must exist), else the first of CONFIG_FILES in
 * the working directory, else nothing. JSON, or YAML for a `.yaml`/`.yml` file. A relative
 * `baseline`, `ledger`, `caFile`, `clientCert` or `clientKey` is resolved against the file's folder. Throws ConfigError for an unreadable or invalid file.
 */
export function loadConfig(file?: string, cwd = process.cwd()): KgateConfig {
  const found = file ?? CONFIG_FILES.find((name) => existsSync(resolve(cwd, name)));
  if (found === undefined) return {};
  const path = resolve(cwd, found);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`${found}: cannot read (${(error as NodeJS.ErrnoException).code ?? error})`, {
      file: found,
      rule: 'must be a readable file',
    });
  }
  const yaml = ['.yaml', '.yml'].includes(extname(path).toLowerCase());
  let value: unknown;
  try {
    value = yaml ? (load('yaml') as typeof import('yaml')).parse(text) : JSON.parse(text);
  } catch (error) {
    const first = (error as Error).message.split('\n')[0];
    throw new ConfigError(`${found}: not ${yaml ? 'YAML' : 'JSON'} (${first})`, {
      file: found,
      rule: `must be ${yaml ? 'YAML' : 'JSON'}`,
    });
  }
  const config = parseConfig(value ?? {}, found);
  for (const key of ['baseline', 'ledger', 'caFile', 'clientCert', 'clientKey'] as const) {
    const file = config[key];
    if (file !== undefined) config[key] = resolve(dirname(path), file);
  }
  return config;
}

/** Parses a comma-separated list of APIs (`none` for no API); throws ConfigError naming `source` and the rule. */
export function parseApiList(raw: string, source: string): ApiName[] {
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (names.length === 1 && names[0] === 'none') return [];
  const unknown = names.filter((name) => !(APIS as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0) {
    const near = unknown[0] ? didYouMean(unknown[0], APIS) : '';
    const rule = `takes a comma-separated list of ${APIS.join(', ')}, or none`;
    throw new ConfigError(
      `${source}: '${unknown[0] ?? raw}' is not an API (${near ? `${near} ` : ''}a comma-separated list of ${APIS.join(', ')}, or none)`,
      /^[A-Z][A-Z0-9_]*$/.test(source) ? { variable: source, rule } : { rule },
    );
  }
  return names as ApiName[];
}
