// Debian's own nginx, squid and Varnish, started on 127.0.0.1 for tests and benches, with certificates made
// at test time by openssl: the front servers and forward proxies real deployments sit behind, not
// stand-ins of kgate's own. Every server gets a fresh temporary folder (configuration, pid, logs),
// a port the system just handed out, and is stopped on stop() or, at the latest, when the process
// exits. A missing binary skips the test where it runs by hand and fails it in CI (`CI` set):
// `.ci/run` installs nginx-light, squid, varnish, openssl and apache2-utils.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { type AddressInfo, connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readEnv } from '../config/env.ts';

/** The binaries this module starts, where Debian installs them. */
export const BINARIES = {
  nginx: '/usr/sbin/nginx',
  squid: '/usr/sbin/squid',
  openssl: 'openssl',
  htpasswd: 'htpasswd',
  basicNcsaAuth: '/usr/lib/squid/basic_ncsa_auth',
  varnishd: '/usr/sbin/varnishd',
  haproxy: '/usr/sbin/haproxy',
  lighttpd: '/usr/sbin/lighttpd',
  apache2: '/usr/sbin/apache2',
} as const;

/** The Debian packages that carry them (what `.ci/run` installs). */
export const PACKAGES: Record<keyof typeof BINARIES, string> = {
  nginx: 'nginx-light',
  squid: 'squid',
  openssl: 'openssl',
  htpasswd: 'apache2-utils',
  basicNcsaAuth: 'squid',
  varnishd: 'varnish',
  haproxy: 'haproxy',
  lighttpd: 'lighttpd',
  apache2: 'apache2',
};

function found(binary: string): boolean {
  if (binary.startsWith('/')) {
    try {
      accessSync(binary, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  }
  return spawnSync('sh', ['-c', `command -v ${binary}`], { stdio: 'ignore' }).status === 0;
}

/**
 * Why a test needing these binaries cannot run here, or undefined when all are installed. In CI
 * (`CI` set) a missing one throws instead: a skipped proof is no proof there.
 */
export function missingBinaries(
  names: (keyof typeof BINARIES)[],
  ci = readEnv().ci,
  where: Record<keyof typeof BINARIES, string> = BINARIES,
): string | undefined {
  const missing = names.filter((name) => !found(where[name]));
  if (missing.length === 0) return undefined;
  const packages = [...new Set(missing.map((name) => PACKAGES[name]))].join(' ');
  const reason = `${missing.map((name) => where[name]).join(', ')} not installed (apt-get install ${packages})`;
  if (ci) throw new Error(`${reason}: CI must install it (.ci/run)`);
  return reason;
}

/** Files of a test PKI: a CA, a server certificate for 127.0.0.1 and localhost, a client certificate. */
export interface TestCertificates {
  dir: string;
  /** The test CA's certificate (PEM file): what a client must trust. */
  ca: string;
  /** A certificate for 127.0.0.1 and localhost signed by the CA, and its key. */
  serverCert: string;
  serverKey: string;
  /** A client certificate signed by the CA (for mutual TLS), and its key. */
  clientCert: string;
  clientKey: string;
  /** Signed by the CA but for another host name only (elsewhere.invalid). */
  wrongHostCert: string;
  wrongHostKey: string;
  /** Signed by the CA for 127.0.0.1 and localhost, but expired. */
  expiredCert: string;
  expiredKey: string;
  /** The folder's removal. */
  remove(): void;
}

function openssl(dir: string, args: string[]): void {
  const run = spawnSync(BINARIES.openssl, args, { cwd: dir, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`openssl ${args[0]} failed: ${run.stderr || run.error?.message}`);
}

/** Makes a fresh test PKI with openssl (EC keys: a few milliseconds each) in a new temporary folder. */
export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'kgate-pki-'));
  const curve = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(dir, [
    'req',
    '-x509',
    ...curve,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=kgate test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  const sign = (name: string, subject: string, extensions: string, days: string) => {
    writeFileSync(join(dir, `${name}.ext`), extensions);
    openssl(dir, ['req', '-new', ...curve, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject]);
    openssl(dir, [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      days,
      '-out',
      `${name}.pem`,
      '-extfile',
      `${name}.ext`,
    ]);
  };
  const serverExtensions = 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n';
  sign('server', '/CN=localhost', serverExtensions, '2');
  sign('client', '/CN=kgate test client', 'extendedKeyUsage=clientAuth\n', '2');
  sign(
    'wrong-host',
    '/CN=elsewhere.invalid',
    'subjectAltName=DNS:elsewhere.invalid\nextendedKeyUsage=serverAuth\n',
    '2',
  );
  // A validity that ends a day before it starts: expired from the first moment.
  sign('expired', '/CN=localhost', serverExtensions, '-1');
  return {
    dir,
    ca: join(dir, 'ca.pem'),
    serverCert: join(dir, 'server.pem'),
    serverKey: join(dir, 'server.key'),
    clientCert: join(dir, 'client.pem'),
    clientKey: join(dir, 'client.key'),
    wrongHostCert: join(dir, 'wrong-host.pem'),
    wrongHostKey: join(dir, 'wrong-host.key'),
    expiredCert: join(dir, 'expired.pem'),
    expiredKey: join(dir, 'expired.key'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A server this module started. */
export interface RealServer {
  /** What to point kgate at: `http(s)://127.0.0.1:<port>` and, for nginx, the path prefix. */
  url: string;
  port: number;
  /** Its temporary folder (configuration, pid, logs). */
  dir: string;
  /** Its error or cache log so far (for a failing test's message). */
  log(): string;
  /** Stops it (nginx: SIGTERM, then SIGKILL after a second; squid: SIGKILL) and removes its folder. */
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** A port the system just handed out and took back: free unless another process takes it first (then start retries). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    // A connection neither made nor refused (a listener whose backlog is full drops it, and the
    // system retries for minutes) counts as not yet: the caller's 10 s bound holds.
    socket.setTimeout(1_000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Spawns a server in the foreground and waits until `ready` says it serves. Resolves undefined
 * when it exits first because the port was taken in the meantime (the caller retries with another
 * port); any other early exit, or no readiness within 10 s, throws with its log.
 */
async function spawnReady(
  command: string,
  args: string[],
  ready: () => Promise<boolean>,
  log: () => string,
): Promise<ChildProcess | undefined> {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  running.add(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let exited: number | null | undefined;
  child.once('exit', (code) => {
    exited = code;
    running.delete(child);
  });
  const started = Date.now();
  while (Date.now() - started < 10_000) {
    const said = `${stderr}\n${log()}`;
    if (/address already in use|cannot bind/i.test(said)) {
      child.kill('SIGKILL');
      return undefined;
    }
    if (exited !== undefined)
      throw new Error(`${command} exited (${exited}) before it was ready: ${said.trim().slice(-2000)}`);
    if (await ready()) return child;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  child.kill('SIGKILL');
  throw new Error(`${command} was not ready within 10 s: ${`${stderr}\n${log()}`.slice(-2000)}`);
}

function stopper(child: ChildProcess, dir: string, signal: NodeJS.Signals): () => Promise<void> {
  return async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 1000);
      await gone;
      clearTimeout(timer);
    }
    running.delete(child);
    rmSync(dir, { recursive: true, force: true });
  };
}

function readOr(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** How nginx is set up in front of an upstream; every option but upstream has nginx's own default. */
export interface NginxOptions {
  /** The server behind it, `http://127.0.0.1:<port>`. */
  upstream: string;
  /** Terminate TLS with the server certificate of these (default: plain HTTP). */
  tls?: TestCertificates;
  /** Serve with this certificate and key instead of the server certificate (a wrong host, an expired one). */
  serverCertificate?: { cert: string; key: string };
  /** Require a client certificate signed by the test CA (`ssl_verify_client on`; needs tls). */
  verifyClient?: boolean;
  /** A path prefix such as `/api/`: only `location /api/` proxies, to the upstream's root (default: `/`). */
  prefix?: string;
  /** `large_client_header_buffers`, such as `4 2k` (default nginx's own, `4 8k`). */
  largeClientHeaderBuffers?: string;
  /** `client_max_body_size` (default nginx's own, `1m`). */
  clientMaxBodySize?: string;
  /** `keepalive_requests` (default nginx's own, 1000). */
  keepaliveRequests?: number;
  /** `keepalive_timeout` (default nginx's own, `75s`). */
  keepaliveTimeout?: string;
  /** `gzip` of JSON answers (default on, as Debian's nginx.conf has it). */
  gzip?: boolean;
  /**
   * A rate limit (`limit_req`) on the locations under `path` (such as `/answersearch/`), per client
   * address: `rate` (`5r/s`), `burst`, `nodelay`, and `status` (`limit_req_status`; nginx's own
   * default is 503, with its HTML page).
   */
  limitReq?: { path: string; rate: string; burst?: number; nodelay?: boolean; status?: number };
}

/** A running nginx. */
export interface RealNginx extends RealServer {
  /** Its access log, one line per request: `<status> <bytes sent> "<request line>"`. */
  accessLog(): string[];
}

/**
 * Starts Debian's nginx as a reverse proxy in front of `options.upstream`, in the foreground
 * (`daemon off`, one process), with its own prefix folder, configuration, pid file and logs.
 */
export async function startNginx(options: NginxOptions): Promise<RealNginx> {
  const missing = missingBinaries(['nginx']);
  if (missing) throw new Error(missing);
  const dir = mkdtempSync(join(tmpdir(), 'kgate-nginx-'));
  const upstream = new URL(options.upstream);
  const prefix = options.prefix ?? '/';
  if (!prefix.startsWith('/') || !prefix.endsWith('/')) throw new Error(`prefix must start and end with /: ${prefix}`);
  for (let tries = 0; tries < 5; tries++) {
    const port = await freePort();
    const certificate =
      options.serverCertificate ??
      (options.tls ? { cert: options.tls.serverCert, key: options.tls.serverKey } : undefined);
    const lines = [
      'daemon off;',
      'master_process off;',
      'worker_processes 1;',
      `pid ${dir}/nginx.pid;`,
      `error_log ${dir}/error.log warn;`,
      `lock_file ${dir}/nginx.lock;`,
      'events { worker_connections 512; }',
      'http {',
      '  log_format kgate \'$status $body_bytes_sent "$request"\';',
      `  access_log ${dir}/access.log kgate;`,
      `  client_body_temp_path ${dir}/body;`,
      `  proxy_temp_path ${dir}/proxy;`,
      `  fastcgi_temp_path ${dir}/fastcgi;`,
      `  uwsgi_temp_path ${dir}/uwsgi;`,
      `  scgi_temp_path ${dir}/scgi;`,
      '  default_type application/octet-stream;',
      ...(options.gzip === false
        ? []
        : ['  gzip on;', '  gzip_types application/json text/plain;', '  gzip_proxied any;']),
      ...(options.largeClientHeaderBuffers
        ? [`  large_client_header_buffers ${options.largeClientHeaderBuffers};`]
        : []),
      ...(options.clientMaxBodySize ? [`  client_max_body_size ${options.clientMaxBodySize};`] : []),
      ...(options.keepaliveRequests !== undefined ? [`  keepalive_requests ${options.keepaliveRequests};`] : []),
      ...(options.keepaliveTimeout ? [`  keepalive_timeout ${options.keepaliveTimeout};`] : []),
      ...(options.limitReq
        ? [
            `  limit_req_zone $binary_remote_addr zone=kgate:1m rate=${options.limitReq.rate};`,
            ...(options.limitReq.status ? [`  limit_req_status ${options.limitReq.status};`] : []),
          ]
        : []),
      '  server {',
      `    listen 127.0.0.1:${port}${certificate ? ' ssl' : ''};`,
      '    server_name localhost 127.0.0.1;',
      ...(certificate
        ? [`    ssl_certificate ${certificate.cert};`, `    ssl_certificate_key ${certificate.key};`]
        : []),
      ...(options.verifyClient && options.tls
        ? [`    ssl_client_certificate ${options.tls.ca};`, '    ssl_verify_client on;']
        : []),
      ...(options.limitReq
        ? [
            // The limited location: the same upstream path, under the limit.
            `    location ${prefix}${options.limitReq.path.replace(/^\//, '')} {`,
            `      limit_req zone=kgate${options.limitReq.burst !== undefined ? ` burst=${options.limitReq.burst}` : ''}${options.limitReq.nodelay ? ' nodelay' : ''};`,
            `      proxy_pass http://${upstream.host}${options.limitReq.path};`,
            '      proxy_set_header Host $host;',
            '    }',
          ]
        : []),
      `    location ${prefix} {`,
      `      proxy_pass http://${upstream.host}/;`,
      '      proxy_set_header Host $host;',
      '    }',
      '  }',
      '}',
    ];
    writeFileSync(join(dir, 'nginx.conf'), `${lines.join('\n')}\n`);
    const errorLog = () => readOr(join(dir, 'error.log'));
    const child = await spawnReady(
      BINARIES.nginx,
      ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')],
      () => accepts(port),
      errorLog,
    );
    if (!child) continue;
    const origin = `${certificate ? 'https' : 'http'}://127.0.0.1:${port}`;
    return {
      url: prefix === '/' ? origin : `${origin}${prefix.slice(0, -1)}`,
      port,
      dir,
      log: errorLog,
      accessLog: () => readOr(join(dir, 'access.log')).split('\n').filter(Boolean),
      stop: stopper(child, dir, 'SIGTERM'),
    };
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error('nginx: no free port after 5 tries');
}

/** How squid is set up; with no option, an open forward proxy for 127.0.0.1 that caches nothing. */
export interface SquidOptions {
  /** Require these basic credentials (`basic_ncsa_auth` over an `htpasswd` file). */
  auth?: { user: string; password: string };
}

/** A running squid. */
export interface RealSquid extends RealServer {
  /** Its access log, one line per request it handled (a CONNECT tunnel is one line). */
  accessLog(): string[];
  /** The proxy URL, with credentials when given: `http://user:password@127.0.0.1:<port>`. */
  proxyUrl(credentials?: { user: string; password: string }): string;
}

/**
 * Starts Debian's squid as a forward proxy in the foreground (`squid -N`), with its own
 * configuration, no cache, and an access log the test reads (written as each request ends).
 */
export async function startSquid(options: SquidOptions = {}): Promise<RealSquid> {
  const missing = missingBinaries(options.auth ? ['squid', 'htpasswd', 'basicNcsaAuth'] : ['squid']);
  if (missing) throw new Error(missing);
  const dir = mkdtempSync(join(tmpdir(), 'kgate-squid-'));
  // Run as root, squid works as its effective user (Debian's `proxy`), which must write the logs.
  if (process.getuid?.() === 0) chmodSync(dir, 0o777);
  if (options.auth) {
    const made = spawnSync(
      BINARIES.htpasswd,
      ['-bc', join(dir, 'passwords'), options.auth.user, options.auth.password],
      {
        encoding: 'utf8',
      },
    );
    if (made.status !== 0) throw new Error(`htpasswd failed: ${made.stderr}`);
    chmodSync(join(dir, 'passwords'), 0o644);
  }
  for (let tries = 0; tries < 5; tries++) {
    const port = await freePort();
    const lines = [
      `http_port 127.0.0.1:${port}`,
      `pid_filename ${dir}/squid.pid`,
      `cache_log ${dir}/cache.log`,
      `access_log stdio:${dir}/access.log squid`,
      'buffered_logs off',
      'logfile_rotate 0',
      'cache deny all',
      'cache_mem 8 MB',
      `coredump_dir ${dir}`,
      'netdb_filename none',
      'pinger_enable off',
      'icp_port 0',
      'htcp_port 0',
      'shutdown_lifetime 0 seconds',
      'dns_nameservers 127.0.0.1',
      `hosts_file ${dir}/hosts`,
      'acl loopback dst 127.0.0.1/32 ::1',
      ...(options.auth
        ? [
            `auth_param basic program ${BINARIES.basicNcsaAuth} ${dir}/passwords`,
            'auth_param basic children 2',
            'auth_param basic realm kgate test proxy',
            'acl authenticated proxy_auth REQUIRED',
            'http_access deny !authenticated',
          ]
        : []),
      'http_access allow localhost loopback',
      'http_access deny all',
    ];
    writeFileSync(join(dir, 'hosts'), '127.0.0.1 localhost\n');
    writeFileSync(join(dir, 'squid.conf'), `${lines.join('\n')}\n`);
    const cacheLog = () => readOr(join(dir, 'cache.log'));
    // Ready when its log says it accepts connections: a probe connection would be a line of its access log.
    // A service name of its own: squid names its shared-memory segments for it, and two squids of
    // one name starting at once (this file's two, another test file's) fail on them ("File
    // exists"). Stopped with SIGKILL, squid leaves them behind: removed before and after.
    const service = `kgate${port}`;
    removeSharedMemory(service);
    const child = await spawnReady(
      BINARIES.squid,
      ['-N', '-n', service, '-f', join(dir, 'squid.conf')],
      async () => cacheLog().includes('Accepting HTTP Socket connections'),
      cacheLog,
    );
    if (!child) continue;
    const origin = `http://127.0.0.1:${port}`;
    return {
      url: origin,
      port,
      dir,
      log: cacheLog,
      accessLog: () => readOr(join(dir, 'access.log')).split('\n').filter(Boolean),
      proxyUrl: (credentials) =>
        credentials
          ? `http://${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}`
          : origin,
      // Its own shutdown waits a second at least; the logs are written as each request ends, so nothing is lost.
      stop: async () => {
        await stopper(child, dir, 'SIGKILL')();
        removeSharedMemory(service);
      },
    };
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error('squid: no free port after 5 tries');
}

/** Removes the shared-memory segments of a squid service (Linux keeps them in /dev/shm as `<service>-*.shm`). */
function removeSharedMemory(service: string): void {
  const shm = '/dev/shm';
  for (const name of existsSync(shm) ? readdirSync(shm) : []) {
    if (name.startsWith(`${service}-`)) rmSync(join(shm, name), { force: true });
  }
}

/** How Varnish is set up in front of an upstream. */
export interface VarnishOptions {
  /** The server behind it, `http://127.0.0.1:<port>`. */
  upstream: string;
  /**
   * `stock`: Debian's Varnish with its built-in VCL, which caches answers by URL and host alone;
   * `keyed`: the same, with the subscription key added to the hash (`vcl_hash`), so each key has
   * entries of its own.
   */
  vcl: 'stock' | 'keyed';
}

/** A running Varnish. */
export interface RealVarnish extends RealServer {}

/**
 * Starts Debian's Varnish (`varnishd -F`, in the foreground, without a jail: the tests run as any
 * user) as a cache in front of `options.upstream`, with its own working folder and a 32 MB cache.
 */
export async function startVarnish(options: VarnishOptions): Promise<RealVarnish> {
  const missing = missingBinaries(['varnishd']);
  if (missing) throw new Error(missing);
  const dir = mkdtempSync(join(tmpdir(), 'kgate-varnish-'));
  const upstream = new URL(options.upstream);
  const vcl = [
    'vcl 4.1;',
    `backend default { .host = "${upstream.hostname}"; .port = "${upstream.port}"; }`,
    ...(options.vcl === 'keyed'
      ? [
          '# Each subscription key has entries of its own; the built-in vcl_hash then adds the URL and host.',
          'sub vcl_hash { hash_data(req.http.Ocp-Apim-Subscription-Key); }',
        ]
      : []),
  ];
  writeFileSync(join(dir, 'default.vcl'), `${vcl.join('\n')}\n`);
  for (let tries = 0; tries < 5; tries++) {
    const port = await freePort();
    const log = () => readOr(join(dir, 'varnish.log'));
    const child = await spawnReady(
      BINARIES.varnishd,
      [
        '-F',
        '-j',
        'none',
        '-a',
        `127.0.0.1:${port}`,
        '-f',
        join(dir, 'default.vcl'),
        '-n',
        join(dir, 'work'),
        '-s',
        'malloc,32m',
        '-T',
        'none',
      ],
      () => accepts(port),
      log,
    );
    if (!child) continue;
    return { url: `http://127.0.0.1:${port}`, port, dir, log, stop: stopper(child, dir, 'SIGTERM') };
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error('varnish: no free port after 5 tries');
}

/** How HAProxy is set up in front of an upstream. */
export interface HaproxyOptions {
  /** The server behind it, `http://127.0.0.1:<port>`. */
  upstream: string;
  /**
   * `quota`: a call counter per subscription key (a stick table keyed on the header) answering the
   * gateway's quota 403 (its message and Retry-After, as facts.md gives them) once a key made more
   * than `calls` requests; `rate`: a stick table of each client's request rate over one second,
   * refusing with HAProxy's 429 (no Retry-After) above `perSecond` (refused requests count too), on
   * the requests whose path starts with `path` (all when absent).
   */
  limit: { kind: 'quota'; calls: number } | { kind: 'rate'; perSecond: number; path?: string };
}

/** A running HAProxy. */
export interface RealHaproxy extends RealServer {}

/** The gateway's quota answer, as facts.md gives it. */
export const GATEWAY_QUOTA_MESSAGE = 'Out of call volume quota. Quota will be replenished in 23:59:59.';

/** Starts Debian's HAProxy (`haproxy -db`, in the foreground) in front of `options.upstream` with a limit of `options.limit`. */
export async function startHaproxy(options: HaproxyOptions): Promise<RealHaproxy> {
  const missing = missingBinaries(['haproxy']);
  if (missing) throw new Error(missing);
  const dir = mkdtempSync(join(tmpdir(), 'kgate-haproxy-'));
  const upstream = new URL(options.upstream);
  const limit =
    options.limit.kind === 'quota'
      ? [
          '  stick-table type string len 200 size 1k store http_req_cnt',
          '  http-request track-sc0 req.hdr(Ocp-Apim-Subscription-Key) if { req.hdr(Ocp-Apim-Subscription-Key) -m found }',
          `  http-request return status 403 content-type application/json string '{"statusCode":403,"message":"${GATEWAY_QUOTA_MESSAGE}"}' hdr Retry-After 86399 if { sc_http_req_cnt(0) gt ${options.limit.calls} }`,
        ]
      : [
          '  stick-table type ip size 1k expire 30s store http_req_rate(1s)',
          `  http-request track-sc0 src${options.limit.path ? ` if { path_beg ${options.limit.path} }` : ''}`,
          `  http-request deny deny_status 429 if { sc_http_req_rate(0) gt ${options.limit.perSecond} }${options.limit.path ? ` { path_beg ${options.limit.path} }` : ''}`,
        ];
  for (let tries = 0; tries < 5; tries++) {
    const port = await freePort();
    const config = [
      'global',
      '  maxconn 256',
      'defaults',
      '  mode http',
      '  timeout connect 5s',
      '  timeout client 60s',
      '  timeout server 60s',
      'frontend gateway',
      `  bind 127.0.0.1:${port}`,
      ...limit,
      '  default_backend deployment',
      'backend deployment',
      `  server up ${upstream.hostname}:${upstream.port}`,
    ];
    writeFileSync(join(dir, 'haproxy.cfg'), `${config.join('\n')}\n`);
    const child = await spawnReady(
      BINARIES.haproxy,
      ['-db', '-f', join(dir, 'haproxy.cfg')],
      () => accepts(port),
      () => '',
    );
    if (!child) continue;
    return { url: `http://127.0.0.1:${port}`, port, dir, log: () => '', stop: stopper(child, dir, 'SIGTERM') };
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error('haproxy: no free port after 5 tries');
}

/** A running lighttpd. */
export interface RealLighttpd extends RealServer {}

/**
 * Starts Debian's lighttpd (`lighttpd -D`, in the foreground) as a reverse proxy to `upstream` at
 * the path prefix `prefix` (`/api/`), with its stock settings otherwise: the request parsing
 * lighttpd ships with (it refuses a URL holding a control character, even percent-encoded, with a
 * page of its own).
 */
export async function startLighttpd(options: { upstream: string; prefix: string }): Promise<RealLighttpd> {
  const missing = missingBinaries(['lighttpd']);
  if (missing) throw new Error(missing);
  const dir = mkdtempSync(join(tmpdir(), 'kgate-lighttpd-'));
  const upstream = new URL(options.upstream);
  for (let tries = 0; tries < 5; tries++) {
    const port = await freePort();
    const config = [
      'server.modules = ( "mod_proxy" )',
      `server.document-root = "${dir}"`,
      'server.bind = "127.0.0.1"',
      `server.port = ${port}`,
      `server.errorlog = "${join(dir, 'error.log')}"`,
      `$HTTP["url"] =~ "^${options.prefix}" {`,
      `  proxy.server = ( "" => (( "host" => "${upstream.hostname}", "port" => ${upstream.port} )) )`,
      `  proxy.header = ( "map-urlpath" => ( "${options.prefix}" => "/" ) )`,
      '}',
    ];
    writeFileSync(join(dir, 'lighttpd.conf'), `${config.join('\n')}\n`);
    const log = () => readOr(join(dir, 'error.log'));
    const child = await spawnReady(
      BINARIES.lighttpd,
      ['-D', '-f', join(dir, 'lighttpd.conf')],
      () => accepts(port),
      log,
    );
    if (!child) continue;
    return {
      url: `http://127.0.0.1:${port}${options.prefix.replace(/\/$/, '')}`,
      port,
      dir,
      log,
      stop: stopper(child, dir, 'SIGTERM'),
    };
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error('lighttpd: no free port after 5 tries');
}

/** How Apache's mod_cache keys what it stores. */
export interface ApacheOptions {
  /** The server behind it, `http://127.0.0.1:<port>`. */
  upstream: string;
  /**
   * `url`: mod_cache's own key, the URL alone, so a keyed request's answer is served to anyone who
   * asks the same URL; `keyed`: the answers say `Vary: Ocp-Apim-Subscription-Key`, so each key has
   * entries of its own. Either way every answer is made cacheable for a minute (mod_cache keeps no
   * answer to a URL with a query unless told how long it stays fresh).
   */
  cache: 'url' | 'keyed';
}

/** A running Apache. */
export interface RealApache extends RealServer {}

/** Debian's Apache modules. */
const APACHE_MODULES = '/usr/lib/apache2/modules';

/**
 * Starts Debian's Apache (`apache2 -DFOREGROUND`, with a configuration of its own and no site of
 * Debian's) as a reverse proxy (mod_proxy_http) in front of `options.upstream`, with mod_cache
 * storing answers on disk (mod_cache_disk) keyed as `options.cache` says.
 */
export async function startApache(options: ApacheOptions): Promise<RealApache> {
  const missing = missingBinaries(['apache2']);
  if (missing) throw new Error(missing);
  const dir = mkdtempSync(join(tmpdir(), 'kgate-apache-'));
  // Run as root, Apache's children run as its default user: the cache folder must be theirs too.
  chmodSync(dir, 0o755);
  mkdirSync(join(dir, 'cache'));
  chmodSync(join(dir, 'cache'), 0o777);
  const upstream = new URL(options.upstream);
  const modules = ['mpm_event', 'authz_core', 'proxy', 'proxy_http', 'cache', 'cache_disk', 'headers'];
  for (let tries = 0; tries < 5; tries++) {
    const port = await freePort();
    const config = [
      `ServerRoot "${dir}"`,
      `Listen 127.0.0.1:${port}`,
      `PidFile "${join(dir, 'httpd.pid')}"`,
      `ErrorLog "${join(dir, 'error.log')}"`,
      `DefaultRuntimeDir "${dir}"`,
      ...modules.map((name) => `LoadModule ${name}_module ${APACHE_MODULES}/mod_${name}.so`),
      'ServerName localhost',
      `CacheRoot "${join(dir, 'cache')}"`,
      'CacheEnable disk /',
      'Header set Cache-Control "public, max-age=60"',
      ...(options.cache === 'keyed' ? ['Header merge Vary Ocp-Apim-Subscription-Key'] : []),
      `ProxyPass / http://${upstream.hostname}:${upstream.port}/`,
      `ProxyPassReverse / http://${upstream.hostname}:${upstream.port}/`,
    ];
    writeFileSync(join(dir, 'httpd.conf'), `${config.join('\n')}\n`);
    const log = () => readOr(join(dir, 'error.log'));
    const child = await spawnReady(
      BINARIES.apache2,
      ['-f', join(dir, 'httpd.conf'), '-DFOREGROUND'],
      () => accepts(port),
      log,
    );
    if (!child) continue;
    return { url: `http://127.0.0.1:${port}`, port, dir, log, stop: stopper(child, dir, 'SIGTERM') };
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error('apache2: no free port after 5 tries');
}
