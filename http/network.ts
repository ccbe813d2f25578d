// The network between kgate and a target, as curl reads it: a forward proxy per scheme
// (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, or one given outright), the hosts that bypass it (NO_PROXY),
// and the certificates of TLS (a CA file, a client certificate and key). The values come from the
// command line, the configuration file and the environment (read in config/env.ts only); this module
// parses them, says which proxy a URL goes through, and describes them without their secrets.
import { readFileSync } from 'node:fs';
import { BlockList, isIP } from 'node:net';
import { createSecureContext, type TLSSocket } from 'node:tls';

/** A proxy or certificate setting that cannot be used: the message names its source and the rule. */
export class NetworkConfigError extends Error {
  override name = 'NetworkConfigError';
}

/** Forward proxies by the scheme of the target, and the hosts that bypass them. */
export interface ProxySettings {
  /** For http:// targets: requests in absolute form. */
  http?: URL;
  /** For https:// targets: a CONNECT tunnel, TLS inside it. */
  https?: URL;
  /** NO_PROXY entries: host names, domain suffixes, IP addresses or ranges, each with an optional port; `*` for all. */
  noProxy: string[];
  /** Where the proxies came from, for the run header (`--proxy`, `HTTPS_PROXY`...). */
  source?: string;
}

/** The certificates of TLS connections: PEM contents, with the files they came from (for curl lines and headers). */
export interface TlsSettings {
  /** CA certificates trusted instead of Node's (like curl's --cacert). */
  ca?: Buffer;
  caFile?: string;
  /** A client certificate and its key, for deployments that require mutual TLS. */
  cert?: Buffer;
  certFile?: string;
  key?: Buffer;
  keyFile?: string;
}

/** Everything about the route to a target that is not the target itself. */
export interface NetworkSettings {
  proxy?: ProxySettings;
  tls?: TlsSettings;
}

/**
 * Parses a proxy URL as curl does: `http://[user:password@]host[:port]`, the scheme optional
 * (http), the port 1080 when absent. Only http:// proxies are supported (no https://, no SOCKS).
 * The message of a bad value never echoes it (it may hold a password).
 */
export function parseProxyUrl(raw: string, source: string): URL {
  const text = raw.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new NetworkConfigError(`${source} takes a proxy URL such as http://proxy.example.org:3128`);
  }
  if (url.protocol !== 'http:')
    throw new NetworkConfigError(
      `${source} names a ${url.protocol.replace(/:$/, '')}:// proxy; kgate speaks to http:// proxies (CONNECT for https targets)`,
    );
  if (!url.hostname) throw new NetworkConfigError(`${source} takes a proxy URL with a host`);
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash)
    throw new NetworkConfigError(`${source} takes a proxy URL without a path, query or fragment`);
  if (!url.port) url.port = '1080';
  return url;
}

/** Splits a NO_PROXY value into its entries (commas and spaces separate them). */
export function parseNoProxy(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(/[\s,]+/)
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);
}

/**
 * The proxies of a run: `explicit` (--proxy, the configuration file) for every scheme, else the
 * environment's HTTPS_PROXY / HTTP_PROXY, each falling back to ALL_PROXY. Undefined when none is set.
 */
export function proxySettings(values: {
  explicit?: { url: string; source: string };
  httpsProxy?: { url: string; source: string };
  httpProxy?: { url: string; source: string };
  allProxy?: { url: string; source: string };
  noProxy?: string;
}): ProxySettings | undefined {
  const https = values.explicit ?? values.httpsProxy ?? values.allProxy;
  const http = values.explicit ?? values.httpProxy ?? values.allProxy;
  if (!https && !http) return undefined;
  return {
    ...(https ? { https: parseProxyUrl(https.url, https.source) } : {}),
    ...(http ? { http: parseProxyUrl(http.url, http.source) } : {}),
    noProxy: parseNoProxy(values.noProxy),
    source: [...new Set([https?.source, http?.source].filter(Boolean))].join(', '),
  };
}

/** The port a URL connects to. */
export function portOf(url: URL): number {
  return Number(url.port || (url.protocol === 'https:' ? 443 : 80));
}

/** A URL's host without IPv6 brackets, lower-case, without a trailing dot. */
export function hostOf(url: URL): string {
  return url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
}

/**
 * Whether a NO_PROXY entry matches a target: `*` matches every host; an IP address or range
 * (`10.0.0.0/8`, `::1`) matches the addresses in it; a name matches itself and every host below it
 * (`example.org` and `.example.org` both match `api.example.org`); `:port` after any of them
 * restricts it to that port.
 */
export function matchesNoProxy(entry: string, host: string, port: number): boolean {
  if (entry === '*') return true;
  let name = entry;
  let onlyPort: number | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(name);
  if (bracketed) {
    name = bracketed[1]!;
    onlyPort = bracketed[2] === undefined ? undefined : Number(bracketed[2]);
  } else if ((name.match(/:/g) ?? []).length === 1) {
    const [before, after] = name.split(':');
    if (!/^\d+$/.test(after!)) return false;
    name = before!;
    onlyPort = Number(after);
  }
  if (onlyPort !== undefined && onlyPort !== port) return false;
  const [address, prefix] = name.split('/');
  const family = isIP(address!);
  if (family !== 0) {
    const hostFamily = isIP(host);
    if (hostFamily !== family) return false;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    const list = new BlockList();
    if (prefix === undefined) list.addAddress(address!, type);
    else if (/^\d+$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128))
      list.addSubnet(address!, Number(prefix), type);
    else return false;
    return list.check(host, type);
  }
  const domain = name.replace(/^\*?\./, '').replace(/\.$/, '');
  return domain !== '' && (host === domain || host.endsWith(`.${domain}`));
}

/** The proxy a request to `url` goes through, or undefined to connect directly. */
export function proxyFor(url: URL, settings: ProxySettings | undefined): URL | undefined {
  if (!settings) return undefined;
  const proxy = url.protocol === 'https:' ? settings.https : settings.http;
  if (!proxy) return undefined;
  const host = hostOf(url);
  const port = portOf(url);
  return settings.noProxy.some((entry) => matchesNoProxy(entry, host, port)) ? undefined : proxy;
}

/** A proxy URL as it may be printed: its password masked like the key (`http://user:***@host:port`). */
export function maskedProxy(proxy: URL): string {
  const user = proxy.username ? `${proxy.username}${proxy.password ? ':***' : ''}@` : '';
  return `http://${user}${proxy.host}`;
}

/** The Proxy-Authorization value of a proxy URL with credentials (basic, decoded from the URL's percent-encoding). */
export function proxyAuthorization(proxy: URL): string | undefined {
  if (!proxy.username && !proxy.password) return undefined;
  const credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return `Basic ${Buffer.from(credentials).toString('base64')}`;
}

/** The forms in which a proxy's password could leak: as given, percent-encoded, and inside the basic credentials. */
export function proxySecrets(proxy: URL): string[] {
  if (!proxy.password) return [];
  const password = decodeURIComponent(proxy.password);
  const authorization = proxyAuthorization(proxy)!;
  return [...new Set([password, proxy.password, authorization.slice('Basic '.length)])];
}

/** One line naming the route: the proxy (masked) for each scheme, what bypasses it, and the TLS files. */
export function describeNetwork(settings: NetworkSettings): string | undefined {
  const parts: string[] = [];
  const proxy = settings.proxy;
  if (proxy && (proxy.http || proxy.https)) {
    const same = proxy.http && proxy.https && proxy.http.href === proxy.https.href;
    const routes = same
      ? [`proxy ${maskedProxy(proxy.http!)}`]
      : [
          ...(proxy.https ? [`https through proxy ${maskedProxy(proxy.https)}`] : []),
          ...(proxy.http ? [`http through proxy ${maskedProxy(proxy.http)}`] : []),
        ];
    parts.push(`${routes.join(', ')} (${proxy.source ?? 'configured'})`);
    if (proxy.noProxy.length > 0) parts.push(`no proxy for ${proxy.noProxy.join(', ')}`);
  }
  const tls = settings.tls;
  if (tls?.caFile) parts.push(`CA certificates from ${tls.caFile}`);
  if (tls?.certFile) parts.push(`client certificate ${tls.certFile}`);
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/** What curl needs to send a request to `url` the way kgate did (proxy, no proxy, CA, client certificate); no secret. */
export function curlNetworkArgs(url: URL, settings: NetworkSettings): string[] {
  const args: string[] = [];
  const proxy = proxyFor(url, settings.proxy);
  if (proxy) {
    args.push(`--proxy ${quote(`http://${proxy.host}`)}`);
    if (proxy.username) args.push(`--proxy-user ${quote(`${decodeURIComponent(proxy.username)}:***`)}`);
  } else if (url.protocol === 'https:' ? settings.proxy?.https : settings.proxy?.http) {
    args.push(`--noproxy ${quote(hostOf(url))}`);
  }
  if (url.protocol === 'https:') {
    if (settings.tls?.caFile) args.push(`--cacert ${quote(settings.tls.caFile)}`);
    if (settings.tls?.certFile) args.push(`--cert ${quote(settings.tls.certFile)}`);
    if (settings.tls?.keyFile) args.push(`--key ${quote(settings.tls.keyFile)}`);
  }
  return args;
}

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Node's codes of certificate problems, in words. */
const CERTIFICATE_PROBLEMS: Record<string, string> = {
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its certificate is not signed by a trusted CA',
  UNABLE_TO_GET_ISSUER_CERT: 'its certificate is not signed by a trusted CA',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its certificate is not signed by a trusted CA',
  SELF_SIGNED_CERT_IN_CHAIN: 'its certificate chain ends in a CA that is not trusted',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its certificate is self-signed and not trusted',
  CERT_HAS_EXPIRED: 'its certificate has expired',
  CERT_NOT_YET_VALID: 'its certificate is not valid yet',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its certificate is for another host',
  CERT_REVOKED: 'its certificate is revoked',
  ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED: 'it requires a client certificate',
  ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE: 'it refused the TLS handshake (a client certificate or protocol it requires?)',
  ERR_SSL_WRONG_VERSION_NUMBER: 'it does not speak TLS on this port (an http:// URL?)',
  ERR_SSL_TLSV1_ALERT_UNKNOWN_CA: 'it does not trust the client certificate',
  ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE: 'it refused the client certificate',
};

/** True for a TLS handshake or certificate error (as opposed to the TCP connection failing). */
export function isTlsError(error: NodeJS.ErrnoException): boolean {
  return (
    (error.code !== undefined && (error.code in CERTIFICATE_PROBLEMS || error.code.startsWith('ERR_SSL_'))) ||
    /certificate|SSL routines|TLS/i.test(error.message)
  );
}

/** The certificate a TLS peer showed, as a failure names it. */
export interface ShownCertificate {
  /** Its subject, `CN=..., O=...`. */
  subject?: string;
  /** Its issuer, `CN=..., O=...`. */
  issuer?: string;
  /** The host names and addresses it is for: its subjectAltName entries, else its CN. */
  names: string[];
}

/** A distinguished name as `CN=..., O=...` (Node gives an object; a repeated part is an array). */
function distinguishedName(name: Record<string, string | string[]> | undefined): string | undefined {
  if (!name) return undefined;
  const parts = Object.entries(name).map(([part, value]) => `${part}=${[value].flat().join('+')}`);
  return parts.length > 0 ? parts.join(', ') : undefined;
}

/** The certificate `socket`'s peer showed, or undefined when it showed none. */
export function certificateOf(socket: Pick<TLSSocket, 'getPeerCertificate'>): ShownCertificate | undefined {
  const shown = socket.getPeerCertificate() as {
    subject?: Record<string, string | string[]>;
    issuer?: Record<string, string | string[]>;
    subjectaltname?: string;
  };
  if (!shown || Object.keys(shown).length === 0) return undefined;
  const alternatives = (shown.subjectaltname ?? '')
    .split(/,\s*/)
    .map((entry) => /^(?:DNS|IP Address):(.+)$/.exec(entry.trim())?.[1])
    .filter((name): name is string => name !== undefined);
  const common = shown.subject?.CN;
  return {
    subject: distinguishedName(shown.subject),
    issuer: distinguishedName(shown.issuer),
    names: alternatives.length > 0 ? alternatives : common ? [common].flat() : [],
  };
}

/** Whether a certificate's name (`api.example.org`, `*.example.org`, an address) covers `host`. */
function nameCovers(name: string, host: string): boolean {
  const wanted = host.replace(/^\[|\]$/g, '').toLowerCase();
  const given = name.toLowerCase();
  if (given === wanted) return true;
  if (!given.startsWith('*.')) return false;
  const rest = given.slice(1);
  return wanted.endsWith(rest) && !wanted.slice(0, -rest.length).includes('.');
}

/**
 * One line on a failed TLS connection: the host, what is wrong in words, Node's code, and what to
 * do. With the certificate that failed, its subject and issuer, and a word when it names another
 * host than the target's (a proxy between kgate and the target answering with its own certificate,
 * re-signing the connection). `proxy`: the proxy the connection was tunnelled through, if any.
 */
export function describeTlsError(
  error: NodeJS.ErrnoException,
  hostPort: string,
  seen: { certificate?: ShownCertificate; proxy?: string } = {},
): string {
  const problem = (error.code && CERTIFICATE_PROBLEMS[error.code]) ?? 'TLS failed';
  const { certificate, proxy } = seen;
  const host = hostPort.replace(/:\d+$/, '');
  const untrusted = problem.includes('trusted CA') || problem.includes('not trusted');
  const hint =
    error.code === 'ERR_TLS_CERT_ALTNAME_INVALID'
      ? certificate
        ? ''
        : `: ${error.message.replace(/^Hostname\/IP does not match certificate's altnames: /, '')}`
      : untrusted
        ? ' (trust its CA with --ca-file or NODE_EXTRA_CA_CERTS)'
        : problem.includes('client certificate')
          ? ' (give one with --client-cert and --client-key)'
          : '';
  const detail = problem === 'TLS failed' ? `: ${error.message}` : hint;
  let shown = '';
  if (certificate) {
    const names = certificate.names.length > 0 ? certificate.names.join(', ') : 'no host name';
    const other = !certificate.names.some((name) => nameCovers(name, host));
    shown = `; the certificate: subject ${certificate.subject ?? 'none'}, issued by ${certificate.issuer ?? 'nobody named'}, for ${names}`;
    if (other)
      shown += `, not for ${host}: a server between kgate and the target (an intercepting proxy${proxy ? `, such as ${proxy}` : ''}?) answers with a certificate of its own`;
    else if (untrusted && proxy)
      shown += `; if ${certificate.issuer ?? 'its issuer'} is the CA of the proxy ${proxy}, the proxy re-signs (intercepts) the connection: trust that CA with --ca-file`;
  }
  return `TLS with ${hostPort}: ${problem}${detail}${shown} [${error.code ?? 'TLS'}]`;
}

/** A value and where it came from (`--ca-file`, `kgate.config.json: key 'caFile'`, `HTTPS_PROXY`). */
export interface Sourced {
  value: string;
  source: string;
}

/** What a command was told about the network, from its flags, its configuration file and the environment. */
export interface NetworkInput {
  /** --proxy, else the configuration file's proxy: replaces the environment's proxies. */
  proxy?: Sourced;
  /** The environment's proxies (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, NO_PROXY; config/env.ts reads them). */
  environment?: {
    https?: { url: string; source: string };
    http?: { url: string; source: string };
    all?: { url: string; source: string };
    noProxy?: string;
  };
  /** The configuration file's noProxy: replaces NO_PROXY. */
  noProxy?: string[];
  caFile?: Sourced;
  clientCert?: Sourced;
  clientKey?: Sourced;
}

function readPem(file: Sourced, what: RegExp, name: string): Buffer {
  let text: Buffer;
  try {
    text = readFileSync(file.value);
  } catch (error) {
    throw new NetworkConfigError(
      `${file.source}: cannot read '${file.value}' (${(error as NodeJS.ErrnoException).code ?? error})`,
    );
  }
  if (!what.test(text.toString('latin1')))
    throw new NetworkConfigError(`${file.source}: '${file.value}' holds no PEM ${name}`);
  return text;
}

/**
 * The network of a command: its proxies (an explicit one for every scheme, else the
 * environment's), what bypasses them, and the TLS files, read and checked (a CA file must hold
 * certificates; a client certificate needs its key, and the two must match). Throws
 * NetworkConfigError naming the option, variable or key at fault, never echoing a proxy password.
 */
export function networkSettings(input: NetworkInput): NetworkSettings {
  const environment = input.environment ?? {};
  const explicit = input.proxy ? { url: input.proxy.value, source: input.proxy.source } : undefined;
  const proxy = proxySettings({
    explicit,
    httpsProxy: environment.https,
    httpProxy: environment.http,
    allProxy: environment.all,
    noProxy: input.noProxy ? input.noProxy.join(',') : environment.noProxy,
  });
  const tls: TlsSettings = {};
  if (input.caFile) {
    tls.ca = readPem(input.caFile, /-----BEGIN CERTIFICATE-----/, 'certificate');
    tls.caFile = input.caFile.value;
  }
  if (input.clientCert || input.clientKey) {
    if (!input.clientCert || !input.clientKey)
      throw new NetworkConfigError(
        `${(input.clientCert ?? input.clientKey)!.source} needs its pair: a client certificate and its key go together (--client-cert and --client-key, or clientCert and clientKey)`,
      );
    tls.cert = readPem(input.clientCert, /-----BEGIN CERTIFICATE-----/, 'certificate');
    tls.key = readPem(input.clientKey, /-----BEGIN [A-Z ]*PRIVATE KEY-----/, 'private key');
    if (/ENCRYPTED/.test(tls.key.toString('latin1')))
      throw new NetworkConfigError(
        `${input.clientKey.source}: '${input.clientKey.value}' is encrypted; kgate reads unencrypted keys`,
      );
    try {
      createSecureContext({ cert: tls.cert, key: tls.key });
    } catch (error) {
      throw new NetworkConfigError(
        `${input.clientKey.source}: '${input.clientKey.value}' does not go with the certificate '${input.clientCert.value}' (${(error as Error).message})`,
      );
    }
    tls.certFile = input.clientCert.value;
    tls.keyFile = input.clientKey.value;
  }
  return {
    ...(proxy ? { proxy } : {}),
    ...(Object.keys(tls).length > 0 ? { tls } : {}),
  };
}
