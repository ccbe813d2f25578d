// kgate's HTTP/1.1 client: every request of every command that talks to a target goes through it
// (the conformance suite, kgate fuzz, kgate drift live, kgate compare, the preflight, the probes and
// the validated share of kgate load). It is written over node:net and node:tls rather than node:http
// so that kgate sees the wire as it is: it knows whether a connection was used before and whether
// any byte of an answer arrived (a request that a server's idle close cut off is sent again, once,
// on a fresh connection), where each answer ends by its own framing (bytes after that end, or bytes
// arriving between exchanges, are reported and the connection is closed, never read as the next
// request's answer), and it keeps one deadline for the whole exchange, a size cap, no
// decompression, and an abort signal. The route is the network's (configureNetwork): directly, or
// through a forward proxy as curl would go (absolute-form requests for http targets, a CONNECT
// tunnel for https ones), with the run's CA and client certificate for TLS.
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import { addedHeadersFor, fieldValueProblem, isHeaderName } from './headers.ts';
import {
  certificateOf,
  describeTlsError,
  hostOf,
  isTlsError,
  maskedProxy,
  type NetworkSettings,
  portOf,
  proxyAuthorization,
  proxyFor,
} from './network.ts';
import { type ParseResult, preview, ResponseParser } from './response-parser.ts';

export { MAX_HEADER_BYTES } from './response-parser.ts';

/** A response read in full (up to the size cap). */
export interface RawResponse {
  status: number;
  /** Lower-case header names; repeated headers joined with ', '. */
  headers: Record<string, string>;
  body: Buffer;
  /** Time from sending the request to the last byte, in milliseconds. */
  elapsedMs: number;
  /** True when the request was sent a second time, on a fresh connection (see HttpRequest). */
  retried?: boolean;
  /** Bytes that came after the answer's declared end, described: the connection was closed, not reused. */
  stray?: string;
  /** Size of the request as sent: its request line and headers, and its body. */
  sent: { headBytes: number; bodyBytes: number };
  /** The HTTP version of the answer's status line (`1.1`, `1.0`). */
  version?: string;
  /** The TLS version of the connection (`TLSv1.3`), for https. */
  tls?: string;
}

/** Why a request could not complete: each maps to one named transport check. */
export type TransportProblem = 'timeout' | 'connection' | 'too-large';

/**
 * What stood between kgate and the target when a connection could not be made: the forward proxy
 * (unreachable, or refusing the tunnel) or TLS (an untrusted, expired or misnamed certificate, a
 * client certificate the server requires). The preflight turns either into one line and exit 2.
 */
export type RouteProblem = 'proxy' | 'tls';

/** A request that did not yield a whole response within the limits. */
export class TransportError extends Error {
  override name = 'TransportError';
  constructor(
    readonly problem: TransportProblem,
    message: string,
    /** Bytes of the body read before giving up. */
    readonly bytesRead = 0,
    /** The status line, when it arrived before the problem. */
    readonly status?: number,
    /** True when the request had been sent a second time, on a fresh connection. */
    readonly retried = false,
    /** Set when the proxy or TLS kept the request from reaching the target at all. */
    readonly route?: RouteProblem,
    /** Bytes of the answer received at all (status line and headers included): 0 when nothing came back. */
    readonly received = 0,
  ) {
    super(message);
  }
}

/** One HTTP request with the limits that keep a hostile target from stalling or flooding the harness. */
export interface HttpRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** Deadline for the whole exchange (connect, headers, body), in milliseconds; a retry gets one of its own. */
  timeoutMs: number;
  /** Largest body read; a longer body is abandoned and reported. */
  maxBytes: number;
  /** Ends the exchange early as a timeout, with the abort reason as its message. */
  signal?: AbortSignal;
  /** Called once the request has been handed to the socket in full (what --max-rps paces by); again for a retry. */
  onSent?: () => void;
  /** Called when the first byte of an answer arrives (the target is there, however slow the rest): once per attempt. */
  onFirstByte?: () => void;
  /** Called whenever bytes of an answer arrive (the target is sending, however slowly). */
  onBytes?: () => void;
  /**
   * Awaited before a retry is sent (a paced run waits for the retry's slot, as for any request),
   * handed the request's `signal`: a request stopped while it waits need not take a slot.
   */
  beforeRetry?: (signal: AbortSignal | undefined) => Promise<unknown>;
  /**
   * Called when bytes arrive on the connection after this exchange's answer was complete, while
   * no other exchange uses it (the connection is then closed). Bytes after the declared end that
   * arrive with the answer itself are reported in RawResponse.stray instead.
   */
  onStray?: (detail: string) => void;
}

/** How long a kept-alive connection rests after an answer before it carries the next request. */
export const SETTLE_MS = 25;
/** Connections open to one origin at most; further requests wait for one. */
export const MAX_CONNECTIONS_PER_ORIGIN = 64;

/** One kept-alive connection. */
interface Connection {
  /** The socket exchanges are written to: a tunnel's TLS socket once the tunnel stands. */
  socket: Socket;
  /** The pool it belongs to: the target's origin and the proxy it goes through. */
  origin: string;
  /** Settles when the connection can carry a request (connected, tunnelled, TLS done); rejects with the reason it cannot. */
  ready: Promise<void>;
  /** Exchanges completed on it. */
  exchanges: number;
  /** Closed by either side, or by kgate after a framing problem: never used again. */
  dead: boolean;
  /** Whom to tell when bytes arrive between exchanges. */
  onStray?: (detail: string) => void;
  /** When it last went back to the pool (performance.now()). */
  idleSince: number;
  /** Listeners while the connection waits in the pool. */
  idleData?: (chunk: Buffer) => void;
  idleEnd?: () => void;
}

interface Pool {
  idle: Connection[];
  open: number;
  waiting: (() => void)[];
}

const pools = new Map<string, Pool>();

function poolOf(origin: string): Pool {
  let pool = pools.get(origin);
  if (!pool) {
    pool = { idle: [], open: 0, waiting: [] };
    pools.set(origin, pool);
  }
  return pool;
}

/** Forgets a connection: closed, out of the pool, its slot given to a waiting request. */
function retire(connection: Connection): void {
  if (!connection.dead) {
    connection.dead = true;
    const pool = poolOf(connection.origin);
    pool.open--;
    const index = pool.idle.indexOf(connection);
    if (index >= 0) pool.idle.splice(index, 1);
    pool.waiting.shift()?.();
  }
  stopIdle(connection);
  connection.socket.destroy();
}

function stopIdle(connection: Connection): void {
  if (connection.idleData) connection.socket.off('data', connection.idleData);
  if (connection.idleEnd) {
    connection.socket.off('end', connection.idleEnd);
    connection.socket.off('close', connection.idleEnd);
    connection.socket.off('error', connection.idleEnd);
  }
  connection.idleData = undefined;
  connection.idleEnd = undefined;
}

/**
 * Puts a connection whose exchange ended cleanly back into the pool. Bytes arriving while it waits
 * there belong to no exchange: the connection is closed and the exchange it last served is told.
 */
function release(connection: Connection): void {
  const pool = poolOf(connection.origin);
  connection.idleData = (chunk: Buffer) => {
    const tell = connection.onStray;
    retire(connection);
    // Some servers and proxies say why they close an idle connection with a 408 first (RFC 9110
    // allows it): that is a close, not bytes of another exchange.
    if (/^HTTP\/1\.[01] 408 /.test(chunk.subarray(0, 13).toString('latin1'))) return;
    tell?.(`${chunk.length} byte(s) arrived on the connection after the answer was complete: ${preview(chunk)}`);
  };
  connection.idleEnd = () => retire(connection);
  connection.socket.on('data', connection.idleData);
  connection.socket.once('end', connection.idleEnd);
  connection.socket.once('close', connection.idleEnd);
  connection.socket.once('error', connection.idleEnd);
  connection.socket.unref();
  connection.idleSince = performance.now();
  pool.idle.push(connection);
  pool.waiting.shift()?.();
}

/**
 * A connection for one exchange: a pooled one that has rested at least SETTLE_MS since its last
 * answer (bytes a server writes right after an answer, a stray second response, show up in that
 * time and close it), else a new one; at MAX_CONNECTIONS_PER_ORIGIN, the first to come free.
 */
async function acquire(url: URL, route: Route, fresh: boolean): Promise<{ connection: Connection; reused: boolean }> {
  const pool = poolOf(route.pool);
  for (;;) {
    const rested = fresh ? undefined : takeRested(pool);
    if (rested) {
      // Bytes may already wait in the kernel while a busy event loop has not read them: let a
      // whole poll phase pass first, so they reach idleData (and close the connection) instead
      // of being read as this request's answer.
      await pollPassed();
      if (rested.dead || rested.socket.destroyed || rested.socket.readableEnded) {
        retire(rested);
        // The pool may have changed meanwhile: look at it afresh.
        continue;
      }
      stopIdle(rested);
      rested.socket.ref();
      return { connection: rested, reused: true };
    }
    if (fresh || pool.open < MAX_CONNECTIONS_PER_ORIGIN) return { connection: open(url, route), reused: false };
    await new Promise<void>((resolve) => {
      pool.waiting.push(resolve);
      setTimeout(resolve, SETTLE_MS);
    });
  }
}

/**
 * Takes the first idle connection that has rested SETTLE_MS out of the pool (retiring the closed
 * ones on the way), in one synchronous step: no other request can take the same one.
 */
function takeRested(pool: Pool): Connection | undefined {
  const now = performance.now();
  for (const connection of [...pool.idle]) {
    if (connection.dead || connection.socket.destroyed || connection.socket.readableEnded) retire(connection);
    else if (now - connection.idleSince >= SETTLE_MS) {
      pool.idle.splice(pool.idle.indexOf(connection), 1);
      return connection;
    }
  }
  return undefined;
}

/** Resolves once the event loop has gone through at least one whole poll phase (I/O read) since the call. */
function pollPassed(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

/** The network of this process (configureNetwork): direct, with Node's CAs, until told otherwise. */
let network: NetworkSettings = {};

/**
 * Sets the route of every later request of this process: the proxies and what bypasses them, the
 * CA file and the client certificate. Kept-alive connections of the previous route are closed.
 */
export function configureNetwork(settings: NetworkSettings): void {
  network = settings;
  closeIdleSockets();
}

/** The network requests go through now. */
export function currentNetwork(): NetworkSettings {
  return network;
}

/** How a request reaches its target: the proxy (if any), tunnelled for https; and the pool its connections share. */
interface Route {
  proxy?: URL;
  /** A CONNECT tunnel through the proxy (https targets); else absolute-form requests to it. */
  tunnel: boolean;
  pool: string;
}

function routeOf(url: URL): Route {
  const proxy = proxyFor(url, network.proxy);
  return {
    proxy,
    tunnel: proxy !== undefined && url.protocol === 'https:',
    pool: `${proxy?.href ?? ''} ${url.origin}`,
  };
}

/** An error that kept a connection from being made, with what stood in the way. */
class RouteError extends Error {
  constructor(
    message: string,
    readonly route?: RouteProblem,
  ) {
    super(message);
  }
}

/** Resolves when `socket` emits `event`; rejects when it fails or closes first, with `describe`'s reading of the error. */
function whenReady(
  socket: Socket,
  event: 'connect' | 'secureConnect',
  describe: (error: NodeJS.ErrnoException) => RouteError,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      socket.off(event, onReady);
      socket.off('error', onError);
      socket.off('close', onClose);
    };
    const onReady = () => {
      cleanup();
      resolve();
    };
    const onError = (error: NodeJS.ErrnoException) => {
      cleanup();
      reject(describe(error));
    };
    const onClose = () => {
      cleanup();
      reject(describe(Object.assign(new Error('connection closed while it was being set up'), { code: 'ECONNRESET' })));
    };
    socket.once(event, onReady);
    socket.once('error', onError);
    socket.once('close', onClose);
  });
}

function tlsOptions(url: URL) {
  const host = hostOf(url);
  return {
    host,
    port: portOf(url),
    servername: /^[\d.:]+$/.test(host) ? undefined : host,
    ALPNProtocols: ['http/1.1'],
    // The chain and the host name are checked once the handshake is done (secureReady), where the
    // certificate that failed can still be read and named; nothing is sent before.
    rejectUnauthorized: false,
    ...(network.tls?.ca ? { ca: network.tls.ca } : {}),
    ...(network.tls?.cert ? { cert: network.tls.cert } : {}),
    ...(network.tls?.key ? { key: network.tls.key } : {}),
  };
}

/** The error of a TCP connection as today's checks name it (`ECONNREFUSED: connect ECONNREFUSED ...`). */
const tcpError = (error: NodeJS.ErrnoException) => new RouteError(`${error.code ?? 'error'}: ${error.message}`);

/** The error of a TLS handshake: a certificate problem names the host and the reason. */
function tlsError(url: URL): (error: NodeJS.ErrnoException) => RouteError {
  return (error) => (isTlsError(error) ? new RouteError(describeTlsError(error, url.host), 'tls') : tcpError(error));
}

/**
 * Resolves when the TLS connection is set up and its certificate verified (the chain against the
 * trusted CAs, the name against the target's host); otherwise rejects naming the certificate that
 * failed, its subject and issuer, and whether it names another host (a proxy between kgate and the
 * target answering with its own). `proxy`: the proxy the connection was tunnelled through, if any.
 */
async function secureReady(socket: TLSSocket, url: URL, proxy?: URL): Promise<void> {
  await whenReady(socket, 'secureConnect', tlsError(url));
  // NODE_TLS_REJECT_UNAUTHORIZED=0 turns the check off, as Node reads it for every TLS connection
  // (Node's own variable, not kgate's: it warns that it is insecure).
  if (socket.authorized || process.env.NODE_TLS_REJECT_UNAUTHORIZED === '0') return;
  const reason = socket.authorizationError as unknown;
  const code = typeof reason === 'string' ? reason : ((reason as NodeJS.ErrnoException)?.code ?? 'TLS');
  const message = reason instanceof Error ? reason.message : String(reason);
  const certificate = certificateOf(socket);
  socket.destroy();
  throw new RouteError(
    describeTlsError(Object.assign(new Error(message), { code }), url.host, {
      ...(certificate ? { certificate } : {}),
      ...(proxy ? { proxy: maskedProxy(proxy) } : {}),
    }),
    'tls',
  );
}

/** Opens a connection for `url` along its route; `ready` says when it can carry a request. */
function open(url: URL, route: Route): Connection {
  const target = { host: hostOf(url), port: portOf(url) };
  let socket: Socket;
  let ready: Promise<void>;
  if (!route.proxy) {
    socket = url.protocol === 'https:' ? connectTls(tlsOptions(url)) : connectTcp(target);
    ready = url.protocol === 'https:' ? secureReady(socket as TLSSocket, url) : whenReady(socket, 'connect', tcpError);
  } else {
    const proxy = route.proxy;
    socket = connectTcp({ host: hostOf(proxy), port: portOf(proxy) });
    const toProxy = whenReady(
      socket,
      'connect',
      (error) =>
        new RouteError(`cannot connect to the proxy ${maskedProxy(proxy)}: ${error.code ?? error.message}`, 'proxy'),
    );
    ready = route.tunnel ? toProxy.then(() => tunnel(connection, url, proxy)) : toProxy;
  }
  socket.setNoDelay(true);
  // Every error is handled by the exchange that owns the socket, or ends an idle one; this keeps a
  // late one (after kgate closed the connection) from being an unhandled 'error' event.
  socket.on('error', () => {});
  // A connection that fails to open is its exchange's failure (handled there); never an unhandled rejection.
  ready.catch(() => {});
  poolOf(route.pool).open++;
  const connection: Connection = { socket, origin: route.pool, ready, exchanges: 0, dead: false, idleSince: 0 };
  return connection;
}

/**
 * Asks the proxy for a tunnel to the target (CONNECT host:port) and starts TLS inside it; the
 * connection's socket becomes the TLS socket. Any answer but a 2xx is the proxy refusing.
 */
async function tunnel(connection: Connection, url: URL, proxy: URL): Promise<void> {
  const raw = connection.socket;
  const authority = url.host.includes(':') || url.port ? url.host : `${url.host}:${portOf(url)}`;
  const authorization = proxyAuthorization(proxy);
  raw.write(
    `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${authorization ? `Proxy-Authorization: ${authorization}\r\n` : ''}\r\n`,
  );
  const head = await new Promise<string>((resolve, reject) => {
    let bytes = Buffer.alloc(0);
    const cleanup = () => {
      raw.off('data', onData);
      raw.off('error', onEnd);
      raw.off('close', onEnd);
    };
    const onData = (chunk: Buffer) => {
      bytes = Buffer.concat([bytes, chunk]);
      const at = bytes.indexOf('\r\n\r\n');
      if (at < 0 && bytes.length < 16 * 1024) return;
      cleanup();
      // Nothing may follow the proxy's 2xx before TLS starts; anything does only after a refusal, which closes.
      if (at >= 0 && bytes.length > at + 4 && /^HTTP\/1\.\d 2/.test(bytes.toString('latin1')))
        raw.unshift(bytes.subarray(at + 4));
      resolve(bytes.subarray(0, Math.max(at, 0)).toString('latin1'));
    };
    const onEnd = () => {
      cleanup();
      reject(
        new RouteError(
          `the proxy ${maskedProxy(proxy)} closed the connection before answering CONNECT ${authority}`,
          'proxy',
        ),
      );
    };
    raw.on('data', onData);
    raw.once('error', onEnd);
    raw.once('close', onEnd);
  });
  const status = /^HTTP\/1\.\d (\d{3})(?: (.*))?/.exec(head.split('\r\n')[0] ?? '');
  if (!status || !status[1]!.startsWith('2')) {
    const answer = status
      ? `${status[1]}${status[2] ? ` ${status[2].trim()}` : ''}`
      : `no HTTP answer (${preview(Buffer.from(head, 'latin1'))})`;
    throw new RouteError(`the proxy ${maskedProxy(proxy)} refused CONNECT ${authority}: ${answer}`, 'proxy');
  }
  const secure: TLSSocket = connectTls({ ...tlsOptions(url), socket: raw });
  secure.on('error', () => {});
  connection.socket = secure;
  await secureReady(secure, url, proxy);
}

/**
 * The request's bytes on the wire: origin form (`GET /path?query`), or absolute form
 * (`GET http://host/path?query`) with the proxy's credentials when it goes to a forward proxy.
 */
function serialize(
  url: URL,
  route: Route,
  request: HttpRequest,
  headers: [string, string][],
): { bytes: Buffer; headBytes: number; bodyBytes: number } {
  const absolute = route.proxy !== undefined && !route.tunnel;
  const target = absolute ? `${url.origin}${url.pathname}${url.search}` : `${url.pathname}${url.search}`;
  const lines = [`${request.method} ${target} HTTP/1.1`, `Host: ${url.host}`];
  const authorization = absolute ? proxyAuthorization(route.proxy!) : undefined;
  if (authorization) lines.push(`Proxy-Authorization: ${authorization}`);
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  if (body !== undefined) lines.push(`Content-Length: ${body.length}`);
  // No Accept-Encoding: kgate never inflates a body, so a compressed one stays the bytes it is.
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  return {
    bytes: Buffer.concat([head, ...(body ? [body] : [])]),
    headBytes: head.length,
    bodyBytes: body?.length ?? 0,
  };
}

/** One attempt at the exchange: `fresh` forces a new connection. */
function attempt(
  url: URL,
  route: Route,
  request: HttpRequest,
  wire: Buffer,
  fresh: boolean,
  started: number,
  deadline: { signal: AbortSignal },
): Promise<
  Omit<RawResponse, 'sent'> & {
    reusedBeforeAnyByte?: TransportError;
    ambiguous?: string;
  }
> {
  return new Promise((resolve, reject) => {
    let connection: Connection | undefined;
    let parser: ResponseParser | undefined;
    let settled = false;
    let reused = false;
    const cleanup = () => {
      deadline.signal.removeEventListener('abort', onAbort);
      if (connection) {
        connection.socket.off('data', onData);
        connection.socket.off('end', onEnd);
        connection.socket.off('close', onEnd);
        connection.socket.off('error', onError);
      }
    };
    const fail = (problem: TransportProblem, message: string, problemOfRoute?: RouteProblem) => {
      if (settled) return;
      settled = true;
      cleanup();
      if (connection) retire(connection);
      const error = new TransportError(
        problem,
        message,
        parser?.bodyBytes ?? 0,
        parser?.status,
        false,
        problemOfRoute,
        parser?.received ?? 0,
      );
      // A kept-alive connection the server had closed (or was closing) when the request went out:
      // nothing of an answer came back, so the request is safe to send again (every operation reads).
      if (reused && problem === 'connection' && (parser?.received ?? 0) === 0)
        resolve({ status: 0, headers: {}, body: Buffer.alloc(0), elapsedMs: 0, reusedBeforeAnyByte: error });
      else reject(error);
    };
    const onAbort = () => {
      const reason = deadline.signal.reason;
      const phase =
        parser?.status === undefined ? 'no response headers' : `body incomplete after ${parser.bodyBytes} bytes`;
      fail('timeout', reason instanceof Error ? reason.message : `${phase} ${String(reason)}`);
    };
    const handle = (result: ParseResult) => {
      if (result.state === 'more' || settled) return;
      if (result.state === 'error') return fail(result.problem, result.message);
      settled = true;
      cleanup();
      const current = connection!;
      current.exchanges++;
      current.onStray = request.onStray;
      const stray =
        result.rest.length > 0
          ? `${result.rest.length} byte(s) after the answer's declared end: ${preview(result.rest)}`
          : undefined;
      if (stray || !result.reusable) retire(current);
      else release(current);
      // Two answers on a reused connection: the first may be a stray one the previous exchange left
      // behind, read for this request. Neither is trusted: the request goes again on a fresh connection.
      if (stray && reused) resolve({ status: 0, headers: {}, body: Buffer.alloc(0), elapsedMs: 0, ambiguous: stray });
      else {
        const tls = (current.socket as TLSSocket).getProtocol?.();
        resolve({
          ...result.response,
          elapsedMs: performance.now() - started,
          ...(stray ? { stray } : {}),
          ...(tls ? { tls } : {}),
        });
      }
    };
    const onData = (chunk: Buffer) => {
      if (parser!.received === 0) request.onFirstByte?.();
      request.onBytes?.();
      handle(parser!.push(chunk));
    };
    const onEnd = () => handle(parser!.end());
    const onError = (error: NodeJS.ErrnoException) => {
      // A server that answers early (a 400 to an oversized body) may close before the upload ends:
      // with the answer's status in hand the error is the upload's, and the end of the answer decides.
      if (parser?.status !== undefined && (error.code === 'EPIPE' || error.code === 'ECONNRESET'))
        return handle(parser.end());
      fail('connection', `${error.code ?? 'error'}: ${error.message}`);
    };
    const send = () => {
      if (settled) return;
      parser = new ResponseParser(request.maxBytes, request.method);
      const socket = connection!.socket;
      socket.on('data', onData);
      socket.once('end', onEnd);
      socket.once('close', onEnd);
      socket.on('error', onError);
      socket.write(wire, (error) => {
        if (!error) request.onSent?.();
      });
    };
    if (deadline.signal.aborted) return onAbort();
    deadline.signal.addEventListener('abort', onAbort, { once: true });
    acquire(url, route, fresh).then(({ connection: taken, reused: wasReused }) => {
      connection = taken;
      reused = wasReused;
      if (settled) {
        if (reused) release(taken);
        else retire(taken);
        return;
      }
      parser = new ResponseParser(request.maxBytes, request.method);
      if (reused) return send();
      taken.ready.then(send, (error: RouteError) => fail('connection', error.message, error.route));
    });
  });
}

/**
 * Sends one request; resolves with the whole response or rejects with a TransportError. A request
 * that a kept-alive connection lost before any byte of its answer arrived is sent again once, on a
 * fresh connection (RawResponse.retried says so); a fresh connection that
 * fails, or one that fails after part of an answer, is the exchange's failure. Through a forward
 * proxy the same rules hold for the connection to the proxy (or the tunnel through it); a proxy that
 * cannot be reached, refuses the tunnel or answers 407, and a TLS handshake that fails, reject with
 * TransportError.route set.
 */
export async function sendHttp(request: HttpRequest): Promise<RawResponse> {
  const url = new URL(request.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`not an http(s) URL: ${url.protocol}`);
  // The process's added headers (headers.ts: the user's, the User-Agent, a URL's Basic credentials)
  // come first, the request's own after them.
  const headers: [string, string][] = [...addedHeadersFor(url, request.headers), ...Object.entries(request.headers)];
  for (const [name, value] of headers) {
    // A line break in a header would write a header of its own choosing: the CLI refuses such
    // values first, naming where they came from; this is the last line of defence.
    if (!isHeaderName(name) || fieldValueProblem(value) !== undefined)
      throw new TypeError(`invalid header ${JSON.stringify(name)}`);
  }
  const route = routeOf(url);
  const { bytes: wire, headBytes, bodyBytes } = serialize(url, route, request, headers);
  const sent = { headBytes, bodyBytes };
  // Each attempt has the whole deadline: a retry only follows a connection lost before any byte of
  // an answer (at once, never after a wait), and may first wait for its slot under a pace.
  const deadlined = async (fresh: boolean) => {
    const started = performance.now();
    const controller = new AbortController();
    let finished = false;
    // The deadline measures the target, not this process: a timer that fires after the event loop
    // was held up (a large answer judged meanwhile) may find the answer waiting, unread, in the
    // socket. Bytes are read in the loop's poll phase, after timers: the deadline gives it that one
    // turn, and ends only an exchange still unfinished after it.
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (!finished) controller.abort(`within ${request.timeoutMs} ms`);
        }),
      request.timeoutMs,
    );
    const onAbort = () => controller.abort(request.signal!.reason ?? new Error('aborted'));
    if (request.signal?.aborted) onAbort();
    request.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const answer = await attempt(url, route, request, wire, fresh, started, controller);
      // Through a proxy in absolute form, a 407 is the proxy refusing the request, never the target's answer.
      if (answer.status === 407 && route.proxy && !route.tunnel)
        throw new TransportError(
          'connection',
          `the proxy ${maskedProxy(route.proxy)} refused the request: 407 (Proxy Authentication Required)`,
          0,
          407,
          false,
          'proxy',
        );
      return answer;
    } finally {
      finished = true;
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
    }
  };
  const first = await deadlined(false);
  if (!first.reusedBeforeAnyByte && !first.ambiguous) return { ...first, sent };
  try {
    await request.beforeRetry?.(request.signal);
    const second = await deadlined(true);
    if (second.reusedBeforeAnyByte) throw second.reusedBeforeAnyByte;
    // Which exchange the extra answer belonged to is known only when the fresh connection shows it
    // again (second.stray names this request's operation); otherwise nobody is blamed on a guess.
    return { ...second, retried: true, sent };
  } catch (error) {
    if (!(error instanceof TransportError)) throw error;
    throw new TransportError(
      error.problem,
      `${error.message} (sent again on a fresh connection after ${first.reusedBeforeAnyByte ? `a kept-alive one was lost before any byte of the answer: ${first.reusedBeforeAnyByte.message}` : `two answers came back on a kept-alive one: ${first.ambiguous}`})`,
      error.bytesRead,
      error.status,
      true,
      error.route,
      error.received,
    );
  }
}

/** Closes kept-alive connections so a process can exit promptly. */
export function closeIdleSockets(): void {
  for (const pool of pools.values()) for (const connection of [...pool.idle]) retire(connection);
}
