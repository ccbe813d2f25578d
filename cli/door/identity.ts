// Who kgate says it is to a target, and what else each request carries: the user's headers
// (`--header 'Name: value'`, repeatable as curl's -H, and the configuration file's `headers`, whose
// values may read environment variables as `${NAME}`), the User-Agent (`kgate/<version>`, which
// `--user-agent` or a User-Agent header replaces), and the checks that every header value and every
// key obeys HTTP's rules before anything is sent. The credentials a base URL carries are sent as
// Basic authorization by the client itself (http/headers.ts).
import { KEY_VARIABLES } from '../../config/env.ts';
import type { KgateConfig } from '../../config/file.ts';
import { registerSecret } from '../../config/redact.ts';
import {
  type AddedHeader,
  credentialSecrets,
  FIELD_VALUE_RULE,
  fieldValueProblem,
  headerSecrets,
  isHeaderName,
} from '../../http/headers.ts';
import { kgateVersion } from '../../reporting/run-meta.ts';
import { option, type ParsedArgs, RuleBroken, stringOption, UsageError } from './args.ts';

/** The options of every command that talks to a target: what its requests carry (see IDENTITY_USAGE). */
export const IDENTITY_OPTIONS = {
  header: {
    ...option.text("'Name: value', a header name (an HTTP token), a colon and its value", 'no colon here', (raw) => {
      const colon = raw.indexOf(':');
      if (colon < 0) throw new RuleBroken('no colon between a name and a value');
      if (!isHeaderName(raw.slice(0, colon).trim()))
        throw new RuleBroken('the name before the colon is not an HTTP token');
      return raw;
    }),
    multiple: true,
    short: 'H',
    secret: true,
  },
  'user-agent': option.text(
    'a User-Agent such as team-gate/1.0 (no line break or control character)',
    'a\u0001b',
    (raw) => {
      if (fieldValueProblem(raw) !== undefined) throw new RuleBroken('a byte HTTP forbids in a header value');
      return raw;
    },
  ),
};

/** The usage lines of IDENTITY_OPTIONS, for each command's --help. */
export const IDENTITY_USAGE = `  --header, -H   'Name: value' sent with every request (repeatable, as curl's -H); adds to the
                 configuration file's headers and replaces one of the same name; 'Name:' sends none.
                 Values are masked in every output unless the name is known to carry no credential
  --user-agent   the User-Agent of every request (default kgate/<version>)
  credentials in the base URL (https://user:password@host/api) are sent as Basic authorization`;

/** Header names kgate sets itself (or that would change how a request is framed or read): never the user's. */
const OWN_HEADERS: Record<string, string> = {
  'ocp-apim-subscription-key':
    'the subscription key comes from KGATE_KEY (or keyVariables), and the checks that leave it out or change it do so on purpose',
  host: "kgate sends the base URL's host",
  'content-length': 'kgate frames each request itself',
  'transfer-encoding': 'kgate frames each request itself',
  connection: 'kgate keeps its connections itself',
  'keep-alive': 'kgate keeps its connections itself',
  'proxy-connection': 'kgate keeps its connections itself',
  te: 'kgate frames each request itself',
  trailer: 'kgate frames each request itself',
  upgrade: 'kgate speaks HTTP/1.1 only',
  expect: 'kgate sends each body at once',
  'content-type': "the checks set a POST's content type, and vary it on purpose",
  'accept-encoding': 'kgate reads every body as sent and never inflates one',
  'proxy-authorization': "a proxy's credentials go in its URL (--proxy http://user:password@host:port, HTTPS_PROXY)",
};

/** Names whose values carry no credential: shown in curl lines and reports unless they name a variable. */
const HARMLESS = new Set([
  'user-agent',
  'accept',
  'accept-language',
  'cache-control',
  'pragma',
  'traceparent',
  'tracestate',
  'x-request-id',
  'x-correlation-id',
]);
/** Names that say they carry a credential, masked whatever else holds. */
const SECRET_NAME = /key|token|secret|auth|passw|cookie|session|signature|credential/i;

/** Whether a header's value is masked in every output: every value but a harmless name's written out in full. */
export function isSecretHeader(name: string, fromVariable: boolean): boolean {
  return fromVariable || SECRET_NAME.test(name) || !HARMLESS.has(name.toLowerCase());
}

/** kgate's own User-Agent. */
export function defaultUserAgent(): string {
  return `kgate/${kgateVersion()}`;
}

/** Throws UsageError when `value` cannot be a header value, naming `source` and the rule (never the value). */
export function checkHeaderValue(value: string, source: string): void {
  const problem = fieldValueProblem(value);
  if (problem !== undefined) throw new UsageError(`${source} ${problem}; ${FIELD_VALUE_RULE}`);
}

/** Throws UsageError for a header name that is not an HTTP token, or is one of kgate's own. */
function checkHeaderName(name: string, source: string): void {
  if (!isHeaderName(name))
    throw new UsageError(
      `${source}: '${name}' is not a header name (an HTTP token: letters, digits and !#$%&'*+.^_\`|~-)`,
    );
  const own = OWN_HEADERS[name.toLowerCase()];
  if (own !== undefined) throw new UsageError(`${source}: ${name} is kgate's own header (${own})`);
}

/**
 * A configuration value with its `${NAME}` references read from `env` (`$${` writes `${`). Throws
 * UsageError naming the key and the variable when one is malformed, unset or empty, or holds a byte
 * HTTP forbids.
 */
export function interpolate(
  raw: string,
  source: string,
  env: NodeJS.ProcessEnv,
): { value: string; fromVariable: boolean } {
  let value = '';
  let fromVariable = false;
  for (let i = 0; i < raw.length; ) {
    if (raw.startsWith('$${', i)) {
      value += '${';
      i += 3;
      continue;
    }
    if (!raw.startsWith('${', i)) {
      value += raw[i];
      i++;
      continue;
    }
    const end = raw.indexOf('}', i);
    const name = end < 0 ? '' : raw.slice(i + 2, end);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new UsageError(
        `${source}: a variable is named as \${NAME} (letters, digits and _; $\${ writes a literal \${)`,
      );
    const found = env[name];
    if (found === undefined || found === '')
      throw new UsageError(`${source} names the environment variable ${name}, which is not set`);
    checkHeaderValue(found, `the environment variable ${name} (named by ${source})`);
    value += found;
    fromVariable = true;
    i = end + 1;
  }
  return { value, fromVariable };
}

/** One header as given, before the sources are merged. */
interface Given {
  name: string;
  value: string;
  fromVariable: boolean;
  /** kgate's default User-Agent. */
  implied?: boolean;
}

/** Splits a `Name: value` line; the value without the spaces and tabs around it (as curl does). */
function splitLine(line: string, source: string): { name: string; value: string } {
  const colon = line.indexOf(':');
  if (colon <= 0)
    // The line is not echoed: it may hold a secret.
    throw new UsageError(`${source} takes 'Name: value' (a header name, a colon, its value)`);
  return { name: line.slice(0, colon), value: line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '') };
}

/** The configuration file's headers, read and checked. */
function fileHeaders(config: KgateConfig, configSource: string, env: NodeJS.ProcessEnv): Given[] {
  const headers = config.headers;
  if (headers === undefined) return [];
  const entries = Array.isArray(headers)
    ? headers.map((line, index) => ({ ...splitLine(line, `${configSource}: key 'headers.${index}'`), index }))
    : Object.entries(headers).map(([name, value], index) => ({ name, value, index }));
  return entries.map(({ name, value, index }) => {
    const source = `${configSource}: key 'headers.${Array.isArray(headers) ? index : name}'`;
    checkHeaderName(name, source);
    const read = interpolate(value, source, env);
    checkHeaderValue(read.value, source);
    return { name, value: read.value, fromVariable: read.fromVariable };
  });
}

/** The --header options, read and checked. */
function flagHeaders(values: ParsedArgs['values']): Given[] {
  const raw = values.header;
  const lines = raw === undefined ? [] : Array.isArray(raw) ? raw.map(String) : [String(raw)];
  return lines.map((line) => {
    const { name, value } = splitLine(line, 'option --header');
    checkHeaderName(name, 'option --header');
    checkHeaderValue(value, `option --header: the value of ${name}`);
    return { name, value, fromVariable: false };
  });
}

/**
 * The headers every request of a command carries, in order: the User-Agent (kgate's, or
 * --user-agent's), then the configuration file's headers, each replaced by --header of the same
 * name, then the other --header ones. An empty value sends no header of that name (curl's `-H
 * 'Name:'`). Throws UsageError naming the option, key or variable at fault.
 */
export function resolveHeaders(
  values: ParsedArgs['values'],
  config: KgateConfig = {},
  configSource = 'the configuration file',
  env: NodeJS.ProcessEnv = process.env,
): AddedHeader[] {
  const userAgent = stringOption(values, 'user-agent');
  if (userAgent !== undefined) checkHeaderValue(userAgent, 'option --user-agent');
  let list: Given[] = [
    {
      name: 'User-Agent',
      value: userAgent ?? defaultUserAgent(),
      fromVariable: false,
      implied: userAgent === undefined,
    },
  ];
  const replace = (given: Given[]) => {
    const names = new Set(given.map((header) => header.name.toLowerCase()));
    list = [...list.filter((header) => !names.has(header.name.toLowerCase())), ...given];
  };
  replace(fileHeaders(config, configSource, env));
  replace(flagHeaders(values));
  return list
    .filter((header) => header.value !== '')
    .map((header) => ({
      name: header.name,
      value: header.value,
      secret: isSecretHeader(header.name, header.fromVariable),
      ...(header.implied ? { implied: true } : {}),
    }));
}

/**
 * Refuses a key that could not be sent as a header value (the common CI mistake: a secret with a
 * trailing newline): every variable a command may read a key from, KGATE_KEY* and KGATE_AGAINST_KEY
 * and those keyVariables names, is checked when set. The message names the variable and the rule.
 */
export function checkKeyVariables(config: KgateConfig = {}, env: NodeJS.ProcessEnv = process.env): void {
  const names = [
    ...Object.values(KEY_VARIABLES),
    'KGATE_AGAINST_KEY',
    ...Object.values(config.keyVariables ?? {}).filter((name): name is string => typeof name === 'string'),
  ];
  for (const name of new Set(names)) {
    const value = env[name];
    if (value === undefined || value.trim() === '') continue;
    const problem = fieldValueProblem(value);
    // A trailing newline is the usual slip (a secret pasted with its line end): said in as many words.
    if (problem !== undefined)
      throw new UsageError(
        `${name} ${problem}: a key is sent as the value of the Ocp-Apim-Subscription-Key header, and ${FIELD_VALUE_RULE} (a secret stored with its trailing newline?)`,
      );
  }
}

/** Registers every form in which the headers' secret values, and a base URL's credentials, could be printed. */
export function registerHeaderSecrets(headers: readonly AddedHeader[], ...urls: (string | undefined)[]): void {
  for (const header of headers) for (const secret of headerSecrets(header)) registerSecret(secret);
  for (const url of urls) {
    if (url === undefined) continue;
    try {
      for (const secret of credentialSecrets(new URL(url))) registerSecret(secret);
    } catch {
      // Not a URL: nothing to register.
    }
  }
}
