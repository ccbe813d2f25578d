// The one masking function every output of kgate passes through (the terminal, every report file,
// every page): the registered secrets (keys, secret header values, passwords), any subscription-key,
// Authorization or Cookie header value, a proxy's credentials, and the credentials a URL may carry
// (a password, a query value named like a key, token or signature) become `***`.

/** Placeholder printed wherever a subscription key would appear. */
export const MASK = '***';

const registered = new Set<string>();

/**
 * Remembers a secret (a subscription key, a header value, a password) so that redactSecrets removes
 * it from any text. Values shorter than 4 characters, a JSON literal (`true`) and a number of fewer
 * than 8 digits (`1234`) are not searched for in text (they would mask unrelated words and break the
 * JSON reports): they are masked only where kgate prints them itself (curl lines, the header
 * patterns below).
 */
export function registerSecret(secret: string | undefined): void {
  if (secret && secret.length >= 4 && !/^(?:true|false|null|-?\d{1,7}(?:\.\d*)?)$/.test(secret)) registered.add(secret);
}

/** Query parameter names whose values are credentials. */
const SECRET_NAME = /key|token|secret|sig|password|auth/i;
/** `?name=value` or `&name=value`: masked where the name reads like a credential. */
const QUERY_VALUE = /([?&][^=&\s'"<>#]*=)([^&\s'"<>#]*)/g;

/**
 * Replaces every registered secret, any Ocp-Apim-Subscription-Key header value, the password of any
 * URL (a proxy's `http://user:password@host`), any Proxy-Authorization value and the value of a
 * query parameter named like a key, token or signature with the mask.
 */
export function redactSecrets(text: string): string {
  let out = text
    .replace(/(Ocp-Apim-Subscription-Key["']?\s*[:=]\s*["']?)[^"'\s,}]+/gi, `$1${MASK}`)
    .replace(
      /((?:Proxy-)?Authorization["']?\s*[:=]\s*["']?(?:(?:Basic|Bearer|Digest|Negotiate|Token|ApiKey|SharedKey)\s+)?)[^"'\s,}]+/gi,
      `$1${MASK}`,
    )
    .replace(/(\bCookie["']?\s*[:=]\s*["']?)[^"'\n}]+/gi, `$1${MASK}`)
    .replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:@/'"]*:)(?!\*\*\*@)[^\s@/'"]+@/gi, `$1${MASK}@`);
  if (out.includes('=')) {
    out = out.replace(QUERY_VALUE, (whole, name: string, value: string) =>
      value && value !== MASK && SECRET_NAME.test(name.slice(1, -1)) ? `${name}${MASK}` : whole,
    );
  }
  for (const secret of registered) out = out.split(secret).join(MASK);
  return out;
}

/** A URL as kgate shows it: its password and key-like query values masked (see redactSecrets). */
export function maskUrl(url: string): string {
  return redactSecrets(url);
}
