import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';

/** The file kgate looks for in the working directory when no --config is given. */
export const CONFIG_FILE = 'kgate.config.json';
/** Path of the JSON Schema of the configuration file (published with the package for editors). */
export const CONFIG_SCHEMA_PATH = new URL('./kgate.config.schema.json', import.meta.url);

/** The APIs a subscription can cover (similarity belongs to the academic API). */
export const APIS = ['academic', 'answerSearch', 'urlPreview', 'eventKnowledge'] as const;
/** One subscribable API. */
export type ApiName = (typeof APIS)[number];

/** What kgate.config.json may hold. */
export interface KgateConfig {
  /** The APIs the unsubscribed key is subscribed to. */
  unsubscribedKeyCovers?: ApiName[];
}

/** A configuration file that cannot be used: the message names the file, the key and the rule. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

let validate: ReturnType<Ajv2020['compile']> | undefined;

/** Checks a parsed configuration against the schema; the first problem becomes one ConfigError line. */
export function parseConfig(value: unknown, source: string): KgateConfig {
  validate ??= new Ajv2020({ allErrors: false, strict: true }).compile(
    JSON.parse(readFileSync(CONFIG_SCHEMA_PATH, 'utf8')) as object,
  );
  if (validate(value)) return value as KgateConfig;
  const error = validate.errors![0]!;
  const key = `${error.instancePath}`.replace(/^\//, '').replace(/\//g, '.');
  if (error.keyword === 'additionalProperties') {
    const unknown = String(error.params.additionalProperty);
    const known = Object.keys(
      (JSON.parse(readFileSync(CONFIG_SCHEMA_PATH, 'utf8')) as { properties: object }).properties,
    );
    throw new ConfigError(
      `${source}: unknown key '${key ? `${key}.` : ''}${unknown}' (known keys: ${known.filter((k) => k !== '$schema').join(', ')})`,
    );
  }
  const rule =
    error.keyword === 'enum'
      ? `must be one of ${(error.params.allowedValues as string[]).join(', ')}`
      : (error.message ?? 'is invalid');
  throw new ConfigError(`${source}: key '${key || '(root)'}' ${rule}`);
}

/**
 * Reads the configuration: the given file (which must exist), else kgate.config.json in the
 * working directory if there is one, else nothing. Throws ConfigError for an unreadable or invalid file.
 */
export function loadConfig(file?: string, cwd = process.cwd()): KgateConfig {
  const path = file !== undefined ? resolve(cwd, file) : resolve(cwd, CONFIG_FILE);
  if (file === undefined && !existsSync(path)) return {};
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`${file ?? CONFIG_FILE}: cannot read (${(error as NodeJS.ErrnoException).code ?? error})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${file ?? CONFIG_FILE}: not JSON (${(error as Error).message})`);
  }
  return parseConfig(value, file ?? CONFIG_FILE);
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
