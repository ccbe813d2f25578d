import type { HarnessEnv } from '../../config/env.ts';
import type { KgateConfig } from '../../config/file.ts';
import { registerSecret } from '../../config/redact.ts';
import { configureNetwork } from '../../http/client.ts';
import { type AddedHeader, configureHeaders } from '../../http/headers.ts';
import {
  describeNetwork,
  NetworkConfigError,
  type NetworkSettings,
  networkSettings,
  parseProxyUrl,
  proxySecrets,
} from '../../http/network.ts';
import { option, type ParsedArgs, RuleBroken, stringOption, UsageError } from './args.ts';
import {
  checkKeyVariables,
  IDENTITY_OPTIONS,
  IDENTITY_USAGE,
  registerHeaderSecrets,
  resolveHeaders,
} from './identity.ts';

/** The options of every command that talks to a target: the route to it and what its requests carry (see NETWORK_USAGE). */
export const NETWORK_OPTIONS = {
  proxy: {
    ...option.text(
      'a proxy URL such as http://proxy.example.org:3128 (with user and password if it needs them)',
      'socks5://127.0.0.1:1080',
      (raw) => {
        try {
          parseProxyUrl(raw, 'it');
        } catch (error) {
          if (error instanceof NetworkConfigError) throw new RuleBroken(error.message.replace(/^it /, ''));
          throw error;
        }
        return raw;
      },
    ),
    secret: true,
  },
  'ca-file': option.path('file'),
  'client-cert': option.path('file'),
  'client-key': option.path('file'),
  ...IDENTITY_OPTIONS,
};

/** The usage lines of NETWORK_OPTIONS, for each command's --help. */
export const NETWORK_USAGE = `  --proxy        forward proxy of every request, http://[user:password@]host[:port]; replaces
                 HTTPS_PROXY, HTTP_PROXY and ALL_PROXY (read as curl reads them), NO_PROXY still applies
  --ca-file      PEM file of the CA certificates TLS trusts instead of Node's (like curl's --cacert;
                 NODE_EXTRA_CA_CERTS adds to Node's instead)
  --client-cert  client certificate (PEM) for a deployment that requires mutual TLS, with --client-key
  --client-key   the client certificate's private key (PEM, unencrypted)
${IDENTITY_USAGE}`;

/** A command's network, resolved: the client's settings, a line for the run header, and the paths workers need. */
export interface ResolvedNetwork {
  settings: NetworkSettings;
  /** The route in words, credentials masked; undefined when requests go directly with Node's CAs. */
  description?: string;
  /** The headers every request carries (cli/door/identity.ts): the User-Agent and the user's; absent: none. */
  headers?: AddedHeader[];
}

/**
 * Resolves the route of a command: --proxy over the configuration file's proxy over the
 * environment's (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY), the file's noProxy over NO_PROXY, the flags'
 * TLS files over the file's. Throws UsageError naming the option, key or variable at fault.
 */
export function resolveNetwork(
  values: ParsedArgs['values'],
  env: Pick<HarnessEnv, 'proxies'>,
  config: KgateConfig = {},
  configSource = 'the configuration file',
): ResolvedNetwork {
  const flag = (name: string) => {
    const value = stringOption(values, name);
    if (value !== undefined && value.trim() === '')
      throw new UsageError(`option --${name} takes a value, got an empty string`, { option: `--${name}` });
    return value === undefined ? undefined : { value, source: `option --${name}` };
  };
  const fromFile = (key: 'proxy' | 'caFile' | 'clientCert' | 'clientKey') =>
    config[key] === undefined ? undefined : { value: config[key]!, source: `${configSource}: key '${key}'` };
  const certFlag = flag('client-cert');
  const keyFlag = flag('client-key');
  let settings: NetworkSettings;
  try {
    settings = networkSettings({
      proxy: flag('proxy') ?? fromFile('proxy'),
      environment: env.proxies,
      noProxy: config.noProxy,
      caFile: flag('ca-file') ?? fromFile('caFile'),
      // A certificate and its key come from the same place: both flags, or both keys of the file.
      ...(certFlag || keyFlag
        ? { clientCert: certFlag, clientKey: keyFlag }
        : { clientCert: fromFile('clientCert'), clientKey: fromFile('clientKey') }),
    });
  } catch (error) {
    if (error instanceof NetworkConfigError) throw new UsageError(error.message);
    throw error;
  }
  // A key that cannot be a header value is refused before anything is sent, as a bad header is.
  checkKeyVariables(config);
  return { settings, description: describeNetwork(settings), headers: resolveHeaders(values, config, configSource) };
}

/**
 * Makes the route and the headers those of every request this process sends, and its proxy
 * passwords, secret header values and the credentials of `targets` (base URLs) secrets (masked
 * wherever they could appear: as given, percent-encoded, inside basic credentials).
 */
export function applyNetwork(network: ResolvedNetwork, ...targets: (string | undefined)[]): void {
  for (const proxy of [network.settings.proxy?.https, network.settings.proxy?.http])
    for (const secret of proxy ? proxySecrets(proxy) : []) registerSecret(secret);
  configureNetwork(network.settings);
  registerHeaderSecrets(network.headers ?? [], ...targets);
  configureHeaders(network.headers ?? []);
}

/** The route for the embedded reference server: a process kgate started on this machine is never reached through a proxy. */
export function embeddedNetwork(network: ResolvedNetwork): ResolvedNetwork {
  const { proxy: _, ...rest } = network.settings;
  return { settings: rest, description: describeNetwork(rest), headers: network.headers };
}
