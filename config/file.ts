import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, resolve } from 'node:path';
import type { Ajv2020, ErrorObject } from 'ajv/dist/2020.js';

// ajv and yaml are loaded only when there is a configuration file to read: every kgate command
// reads this module, and loading both cost a few hundred milliseconds of each command's start.
const load = createRequire(import.meta.url);

import { NetworkConfigError, parseProxyUrl } from '../http/network.ts';

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
  /** The whole run's time limit, in seconds. */
  maxDuration?: number;
  /** At most this many requests in the whole run. */
  maxRequests?: number;
  /** The coverage ledger, absolute (resolved against the configuration file's folder). */
  ledger?: string;
  /** Per path of the spec, the longest an answer may take before latency-within-budget names it, in milliseconds. */
  latencyBudgetMs?: Record<string, number>;
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
}

/** A configuration file that cannot be used: the message names the file, the key and the rule. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

type SchemaNode = { properties?: Record<string, unknown>; 'x-kgate-rule'?: string; $ref?: string };

let schema: { $defs: Record<string, SchemaNode> } & SchemaNode;
let validate: ReturnType<Ajv2020['compile']> | undefined;

function compiled(): NonNullable<typeof validate> {
  if (validate) return validate;
  schema = JSON.parse(readFileSync(CONFIG_SCHEMA_PATH, 'utf8'));
  const { Ajv2020: Ajv } = load('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const ajv = new Ajv({ allErrors: false, strict: true, verbose: true });
  // The rule each pattern stands for, in words: the message a person reads instead of a regex.
  ajv.addKeyword('x-kgate-rule');
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

/** The rule an error breaks, in words. */
function ruleOf(error: ErrorObject): string {
  const parent = error.parentSchema as SchemaNode | undefined;
  const rule =
    parent?.['x-kgate-rule'] ??
    (parent?.$ref ? schema.$defs[parent.$ref.split('/').pop()!]?.['x-kgate-rule'] : undefined);
  if (error.keyword === 'pattern' && rule) return rule;
  if (error.keyword === 'enum') {
    const allowed = (error.params.allowedValues as string[]).join(', ');
    return rule ? `${rule} (${allowed})` : `must be one of ${allowed}`;
  }
  if (error.keyword === 'uniqueItems') return 'must not list an item twice';
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
      throw new ConfigError(
        `${source}: unknown key '${key ? `${key}.` : ''}${unknown}' (known keys: ${known.join(', ')})`,
      );
    }
    // A property name that breaks `propertyNames` (a severity for an unknown check id).
    const name = (error as ErrorObject & { propertyName?: string }).propertyName;
    if (name !== undefined) throw new ConfigError(`${source}: key '${key}.${name}': the name ${ruleOf(error)}`);
    throw new ConfigError(`${source}: key '${key || '(root)'}' ${ruleOf(error)}`);
  }
  const config = value as KgateConfig & { $schema?: string };
  if (config.baseUrl !== undefined) config.baseUrl = checkedBaseUrl(config.baseUrl, source);
  if (config.againstUrl !== undefined) config.againstUrl = checkedBaseUrl(config.againstUrl, source, 'againstUrl');
  if (config.proxy !== undefined) {
    try {
      parseProxyUrl(config.proxy, `${source}: key 'proxy'`);
    } catch (error) {
      if (error instanceof NetworkConfigError) throw new ConfigError(error.message);
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
    throw new ConfigError(
      `${source}: key '${key}' must be an absolute http(s) URL such as https://api.example.org/prefix`,
    );
  }
  if (url.search || url.hash)
    throw new ConfigError(`${source}: key '${key}' must be a base URL without query or fragment`);
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
    throw new ConfigError(`${found}: cannot read (${(error as NodeJS.ErrnoException).code ?? error})`);
  }
  const yaml = ['.yaml', '.yml'].includes(extname(path).toLowerCase());
  let value: unknown;
  try {
    value = yaml ? (load('yaml') as typeof import('yaml')).parse(text) : JSON.parse(text);
  } catch (error) {
    const first = (error as Error).message.split('\n')[0];
    throw new ConfigError(`${found}: not ${yaml ? 'YAML' : 'JSON'} (${first})`);
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
    throw new ConfigError(
      `${source}: '${unknown[0] ?? raw}' is not an API (a comma-separated list of ${APIS.join(', ')}, or none)`,
    );
  }
  return names as ApiName[];
}
