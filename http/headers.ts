// The headers kgate adds to every request it sends, whatever sends it: the user's own (`--header`,
// the configuration file's `headers`), kgate's User-Agent, and the Basic credentials a base URL
// carries (`https://user:password@host/api`, sent as curl sends them). The process sets them once
// (configureHeaders); sendHttp adds them to each request, and a curl line shows them, secrets masked.
// Also the rules of HTTP for a header's name and value (RFC 9110 field-name and field-value), which
// every header kgate sends obeys, the subscription key's included.

/** One header every request of the process carries. */
export interface AddedHeader {
  name: string;
  value: string;
  /** Masked wherever it could be shown (curl lines, reports): see cli/door/identity.ts for which are. */
  secret: boolean;
  /** kgate's own default (its User-Agent): sent, but left out of curl lines, where curl sends its own. */
  implied?: boolean;
}

/** RFC 9110 token: the characters a header's name may hold. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** True when `name` is a valid header name (an RFC 9110 token). */
export function isHeaderName(name: string): boolean {
  return TOKEN.test(name);
}

/** The rule a header value must follow, in words (for messages). */
export const FIELD_VALUE_RULE =
  'a header value holds visible characters, spaces and tabs only (RFC 9110 field-value): no line break (CR, LF), NUL or other control character, no character beyond one byte, no whitespace at either end';

/** A character as a person reads it in a message. */
function describeCharacter(code: number): string {
  if (code === 0x0a) return 'a line break (LF)';
  if (code === 0x0d) return 'a carriage return (CR)';
  if (code === 0x00) return 'a NUL byte';
  if (code === 0x09) return 'a tab';
  if (code === 0x20) return 'a space';
  const hex = code.toString(16).toUpperCase().padStart(4, '0');
  return code > 0xff ? `the character U+${hex} (beyond one byte)` : `the control character U+${hex}`;
}

/**
 * Why `value` cannot be a header value, or undefined when it can: the first byte HTTP forbids and
 * where it is (never the value itself, which may be a secret). Allowed: HTAB, SP, visible ASCII and
 * the obs-text bytes 0x80-0xFF, with no whitespace at either end (a server would strip it, so the
 * value received would not be the value given).
 */
export function fieldValueProblem(value: string): string | undefined {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code === 0x09 || (code >= 0x20 && code <= 0x7e) || (code >= 0x80 && code <= 0xff)) continue;
    const where =
      i === value.length - 1
        ? `at its end (character ${i + 1} of ${value.length})`
        : `at character ${i + 1} of ${value.length}`;
    return `holds ${describeCharacter(code)} ${where}`;
  }
  if (/^[ \t]/.test(value)) return `begins with ${describeCharacter(value.charCodeAt(0))}`;
  if (/[ \t]$/.test(value)) return `ends with ${describeCharacter(value.charCodeAt(value.length - 1))}`;
  return undefined;
}

let added: readonly AddedHeader[] = [];

/**
 * Sets the headers every later request of this process carries (after Host and before the
 * request's own): the user's headers and kgate's User-Agent. Each must be valid (the CLI checks
 * them first, naming the option; here an invalid one is a TypeError).
 */
export function configureHeaders(headers: readonly AddedHeader[]): void {
  for (const header of headers) {
    if (!isHeaderName(header.name) || fieldValueProblem(header.value) !== undefined)
      throw new TypeError(`invalid header ${JSON.stringify(header.name)}`);
  }
  added = headers.map((header) => ({ ...header }));
}

/** The headers every request of this process carries (configureHeaders). */
export function currentHeaders(): readonly AddedHeader[] {
  return added;
}

/** The user name and password a URL carries, percent-decoded; undefined when it carries none. */
export function urlCredentials(url: URL): { user: string; password: string } | undefined {
  if (!url.username && !url.password) return undefined;
  const decode = (text: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      return text;
    }
  };
  return { user: decode(url.username), password: decode(url.password) };
}

/** The Authorization value of a URL's credentials (Basic, as curl sends `https://user:password@host`). */
export function basicAuthorization(url: URL): string | undefined {
  const credentials = urlCredentials(url);
  if (!credentials) return undefined;
  return `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`, 'utf8').toString('base64')}`;
}

/**
 * The headers added to a request to `url` that sets `own` itself: the configured ones, then the
 * Basic credentials of the URL (unless an Authorization header is configured: it wins, as in curl),
 * each only where the request does not set a header of that name itself.
 */
export function addedHeadersFor(url: URL, own: Record<string, string>): [string, string][] {
  const taken = new Set(Object.keys(own).map((name) => name.toLowerCase()));
  const out: [string, string][] = [];
  for (const header of added) {
    if (taken.has(header.name.toLowerCase())) continue;
    out.push([header.name, header.value]);
  }
  const basic = basicAuthorization(url);
  if (basic && !taken.has('authorization') && !added.some((header) => header.name.toLowerCase() === 'authorization'))
    out.push(['Authorization', basic]);
  return out;
}

/** A URL without its credentials (`https://host/api` of `https://user:password@host/api`), as a request names it. */
export function withoutCredentials(url: string): string {
  const at = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i.exec(url);
  return at ? `${at[1]}${url.slice(at[0].length)}` : url;
}

/**
 * What curl needs to send the added headers as kgate did: `-u 'user:***'` for a URL's credentials,
 * `-H 'Name: value'` for each configured header, secret values as `***`; the request's own names
 * and kgate's default User-Agent skipped.
 */
export function curlHeaderArgs(url: URL, own: Record<string, string>): string[] {
  const taken = new Set(Object.keys(own).map((name) => name.toLowerCase()));
  const args: string[] = [];
  const credentials = urlCredentials(url);
  if (
    credentials &&
    !added.some((header) => header.name.toLowerCase() === 'authorization') &&
    !taken.has('authorization')
  )
    args.push(`-u ${quote(`${credentials.user}:***`)}`);
  for (const header of added) {
    if (header.implied || taken.has(header.name.toLowerCase())) continue;
    args.push(`-H ${quote(`${header.name}: ${header.secret ? '***' : header.value}`)}`);
  }
  return args;
}

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The forms in which a secret header's value could be printed: the value, and its credentials
 * without the scheme word (`abc.def` of `Bearer abc.def`). None for a header that is not secret.
 */
export function headerSecrets(header: AddedHeader): string[] {
  if (!header.secret) return [];
  const scheme = /^[A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*[ \t]+(\S.*)$/.exec(header.value);
  return [...new Set([header.value, ...(scheme ? [scheme[1]!] : [])])];
}

/** The forms in which a URL's password could be printed: as given, percent-decoded, and inside its Basic credentials. */
export function credentialSecrets(url: URL): string[] {
  const credentials = urlCredentials(url);
  if (!credentials?.password) return [];
  return [...new Set([credentials.password, url.password, basicAuthorization(url)!.slice('Basic '.length)])];
}
