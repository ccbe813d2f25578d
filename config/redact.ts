/** Placeholder printed wherever a subscription key would appear. */
export const MASK = '***';

const registered = new Set<string>();

/** Remembers a secret (a subscription key) so that redactSecrets removes it from any text. */
export function registerSecret(secret: string | undefined): void {
  if (secret && secret.length >= 4) registered.add(secret);
}

/**
 * Replaces every registered secret, any Ocp-Apim-Subscription-Key header value, the password of any
 * URL (a proxy's `http://user:password@host`) and any Proxy-Authorization value with the mask.
 */
export function redactSecrets(text: string): string {
  let out = text
    .replace(/(Ocp-Apim-Subscription-Key["']?\s*[:=]\s*["']?)[^"'\s,}]+/gi, `$1${MASK}`)
    .replace(/(Proxy-Authorization["']?\s*[:=]\s*["']?(?:Basic\s+)?)[^"'\s,}]+/gi, `$1${MASK}`)
    .replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:@/'"]*:)(?!\*\*\*@)[^\s@/'"]+@/gi, `$1${MASK}@`);
  for (const secret of registered) out = out.split(secret).join(MASK);
  return out;
}
