// kgate's HTTP/1.1 client: every request of every command that talks to a target goes through it
// (the conformance suite, kgate fuzz, kgate drift live, the preflight and the probes). It is written
// over node:net and node:tls rather than node:http so that kgate sees the wire as it is: it knows
// whether a connection was used before and whether any byte of an answer arrived (a request that a
// server's idle close cut off is sent again, once, on a fresh connection), where each answer ends
// by its own framing (bytes after that end, or bytes arriving between exchanges, are reported and
// the connection is closed, never read as the next request's answer), and it keeps one deadline
// for the whole exchange, a size cap, no decompression, and an abort signal.
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';

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
}

/** Why a request could not complete: each maps to one named transport check. */
export type TransportProblem = 'timeout' | 'connection' | 'too-large';

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
  /** Awaited before a retry is sent (a paced run waits for the retry's slot, as for any request). */
  beforeRetry?: () => Promise<unknown>;
  /**
   * Called when bytes arrive on the connection after this exchange's answer was complete, while
   * no other exchange uses it (the connection is then closed). Bytes after the declared end that
   * arrive with the answer itself are reported in RawResponse.stray instead.
   */
  onStray?: (detail: string) => void;
}

/** Largest status line and headers read, as node:http allows. */
export const MAX_HEADER_BYTES = 16 * 1024;
/** How long a kept-alive connection rests after an answer before it carries the next request. */
export const SETTLE_MS = 25;
/** Connections open to one origin at most; further requests wait for one. */
export const MAX_CONNECTIONS_PER_ORIGIN = 64;

const CRLF = Buffer.from('\r\n');

/** One kept-alive connection. */
interface Connection {
  socket: Socket;
  origin: string;
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
async function acquire(url: URL, fresh: boolean): Promise<{ connection: Connection; reused: boolean }> {
  const pool = poolOf(url.origin);
  for (;;) {
    if (!fresh) {
      const now = performance.now();
      for (const connection of [...pool.idle]) {
        if (connection.dead || connection.socket.destroyed || connection.socket.readableEnded) retire(connection);
        else if (now - connection.idleSince >= SETTLE_MS) {
          // Bytes may already wait in the kernel while a busy event loop has not read them: let a
          // whole poll phase pass first, so they reach idleData (and close the connection) instead
          // of being read as this request's answer.
          pool.idle.splice(pool.idle.indexOf(connection), 1);
          await pollPassed();
          if (connection.dead || connection.socket.destroyed || connection.socket.readableEnded) {
            retire(connection);
            continue;
          }
          stopIdle(connection);
          connection.socket.ref();
          return { connection, reused: true };
        }
      }
    }
    if (fresh || pool.open < MAX_CONNECTIONS_PER_ORIGIN) return { connection: open(url), reused: false };
    await new Promise<void>((resolve) => {
      pool.waiting.push(resolve);
      setTimeout(resolve, SETTLE_MS);
    });
  }
}

/** Resolves once the event loop has gone through at least one whole poll phase (I/O read) since the call. */
function pollPassed(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

function open(url: URL): Connection {
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const socket =
    url.protocol === 'https:'
      ? connectTls({ host, port, servername: /^[\d.:]+$/.test(host) ? undefined : host, ALPNProtocols: ['http/1.1'] })
      : connectTcp({ host, port });
  socket.setNoDelay(true);
  // Every error is handled by the exchange that owns the socket, or ends an idle one; this keeps a
  // late one (after kgate closed the connection) from being an unhandled 'error' event.
  socket.on('error', () => {});
  poolOf(url.origin).open++;
  return { socket, origin: url.origin, exchanges: 0, dead: false, idleSince: 0 };
}

/** The first bytes of a chunk, printable. */
function preview(chunk: Buffer): string {
  const text = chunk
    .subarray(0, 80)
    .toString('latin1')
    .replace(/[^\x20-\x7e]/g, '.');
  return JSON.stringify(chunk.length > 80 ? `${text}...` : text);
}

/** What the parser makes of the bytes of one answer. */
type ParseResult =
  | { state: 'more' }
  | { state: 'done'; response: Omit<RawResponse, 'elapsedMs'>; rest: Buffer; reusable: boolean }
  | { state: 'error'; problem: TransportProblem; message: string };

/**
 * Reads one HTTP/1.1 answer from the bytes as they arrive: status line and headers (informational
 * 1xx answers skipped), then a body framed by Content-Length, by chunked transfer coding, or by the
 * end of the connection. `rest` is whatever came after the answer's declared end.
 */
class ResponseParser {
  private buffer: Buffer = Buffer.alloc(0);
  private head: { status: number; headers: Record<string, string>; reusable: boolean } | undefined;
  private framing: { kind: 'length'; left: number } | { kind: 'chunked' } | { kind: 'close' } | undefined;
  private readonly chunks: Buffer[] = [];
  /** Body bytes read so far (after decoding chunked framing). */
  bodyBytes = 0;
  /** Bytes of the answer received at all. */
  received = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly method: string,
  ) {}

  get status(): number | undefined {
    return this.head?.status;
  }

  push(chunk: Buffer): ParseResult {
    this.received += chunk.length;
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    return this.advance();
  }

  /** The connection ended: an answer framed by the close is complete now; anything else is cut off. */
  end(): ParseResult {
    if (this.head && this.framing?.kind === 'close') {
      this.take(this.buffer);
      if (this.bodyBytes > this.maxBytes) return this.tooLarge();
      return this.done(Buffer.alloc(0), false);
    }
    const where = this.head
      ? `connection closed after ${this.bodyBytes} body bytes`
      : this.received > 0
        ? `connection closed after ${this.received} bytes of the status line and headers`
        : 'connection closed before any byte of the answer';
    return { state: 'error', problem: 'connection', message: where };
  }

  private advance(): ParseResult {
    for (;;) {
      if (!this.head) {
        const at = this.buffer.indexOf('\r\n\r\n');
        if (at < 0) {
          if (this.buffer.length > MAX_HEADER_BYTES) return this.headerOverflow();
          return { state: 'more' };
        }
        if (at > MAX_HEADER_BYTES) return this.headerOverflow();
        const head = this.parseHead(this.buffer.subarray(0, at).toString('latin1'));
        if ('message' in head) return { state: 'error', problem: 'connection', message: head.message };
        this.buffer = this.buffer.subarray(at + 4);
        if (head.status >= 100 && head.status < 200 && head.status !== 101) continue;
        this.head = head;
        const length = head.headers['content-length'];
        const noBody = this.method === 'HEAD' || head.status === 204 || head.status === 304;
        if (noBody) this.framing = { kind: 'length', left: 0 };
        else if (/\bchunked\b/i.test(head.headers['transfer-encoding'] ?? '')) this.framing = { kind: 'chunked' };
        else if (length !== undefined) {
          const left = /^\d+$/.test(length.trim()) ? Number(length.trim()) : Number.NaN;
          if (!Number.isSafeInteger(left))
            return {
              state: 'error',
              problem: 'connection',
              message: `invalid Content-Length ${JSON.stringify(length)}`,
            };
          if (left > this.maxBytes) return this.tooLarge(left);
          this.framing = { kind: 'length', left };
        } else {
          this.framing = { kind: 'close' };
          this.head.reusable = false;
        }
      }
      const framing = this.framing!;
      if (framing.kind === 'close') {
        this.take(this.buffer);
        this.buffer = Buffer.alloc(0);
        return this.bodyBytes > this.maxBytes ? this.tooLarge() : { state: 'more' };
      }
      if (framing.kind === 'length') {
        const piece = this.buffer.subarray(0, framing.left);
        this.take(piece);
        framing.left -= piece.length;
        this.buffer = this.buffer.subarray(piece.length);
        return framing.left === 0 ? this.done(this.buffer, this.head!.reusable) : { state: 'more' };
      }
      // Chunked: size line, data, CRLF; a zero size ends it, after optional trailers and a blank line.
      const line = this.buffer.indexOf('\r\n');
      if (line < 0) return this.buffer.length > MAX_HEADER_BYTES ? this.headerOverflow() : { state: 'more' };
      const size = Number.parseInt(this.buffer.subarray(0, line).toString('latin1').split(';')[0]!.trim(), 16);
      if (!Number.isFinite(size) || size < 0)
        return { state: 'error', problem: 'connection', message: 'invalid chunk size in a chunked body' };
      if (size === 0) {
        // Optional trailer lines, then an empty line.
        const after = this.buffer.subarray(line + 2);
        const blank = after.subarray(0, 2).equals(CRLF) ? 0 : after.indexOf('\r\n\r\n');
        if (blank < 0) return after.length > MAX_HEADER_BYTES ? this.headerOverflow() : { state: 'more' };
        const end = line + 2 + (blank === 0 ? 2 : blank + 4);
        return this.done(this.buffer.subarray(end), this.head!.reusable);
      }
      if (this.buffer.length < line + 2 + size + 2) {
        if (this.bodyBytes + size > this.maxBytes) return this.tooLarge();
        return { state: 'more' };
      }
      this.take(this.buffer.subarray(line + 2, line + 2 + size));
      if (this.bodyBytes > this.maxBytes) return this.tooLarge();
      this.buffer = this.buffer.subarray(line + 2 + size + 2);
    }
  }

  private parseHead(
    text: string,
  ): { status: number; headers: Record<string, string>; reusable: boolean } | { message: string } {
    const [statusLine = '', ...lines] = text.split('\r\n');
    const match = /^HTTP\/1\.([01]) (\d{3})(?: .*)?$/.exec(statusLine);
    if (!match) return { message: `not an HTTP/1.x status line: ${preview(Buffer.from(statusLine, 'latin1'))}` };
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon <= 0) return { message: `malformed header line: ${preview(Buffer.from(line, 'latin1'))}` };
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    }
    const connection = (headers.connection ?? '').toLowerCase();
    const reusable = match[1] === '1' ? !/\bclose\b/.test(connection) : /\bkeep-alive\b/.test(connection);
    return { status: Number(match[2]), headers, reusable };
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    this.bodyBytes += piece.length;
    if (this.bodyBytes <= this.maxBytes) this.chunks.push(piece);
  }

  private done(rest: Buffer, reusable: boolean): ParseResult {
    const head = this.head!;
    return {
      state: 'done',
      response: { status: head.status, headers: head.headers, body: Buffer.concat(this.chunks) },
      rest,
      reusable,
    };
  }

  private tooLarge(declared?: number): ParseResult {
    return {
      state: 'error',
      problem: 'too-large',
      message: `body exceeds the ${this.maxBytes}-byte cap${declared === undefined ? '' : ` (Content-Length ${declared})`}`,
    };
  }

  private headerOverflow(): ParseResult {
    return {
      state: 'error',
      problem: 'connection',
      message: `HPE_HEADER_OVERFLOW: status line and headers larger than ${MAX_HEADER_BYTES} bytes`,
    };
  }
}

/** The request's bytes on the wire. */
function serialize(url: URL, request: HttpRequest): Buffer {
  const lines = [`${request.method} ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`];
  for (const [name, value] of Object.entries(request.headers)) lines.push(`${name}: ${value}`);
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  if (body !== undefined) lines.push(`Content-Length: ${body.length}`);
  // No Accept-Encoding: kgate never inflates a body, so a compressed one stays the bytes it is.
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), ...(body ? [body] : [])]);
}

/** One attempt at the exchange: `fresh` forces a new connection. */
function attempt(
  url: URL,
  request: HttpRequest,
  fresh: boolean,
  started: number,
  deadline: { signal: AbortSignal },
): Promise<
  RawResponse & {
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
        connection.socket.off('connect', onConnect);
        connection.socket.off('secureConnect', onConnect);
      }
    };
    const fail = (problem: TransportProblem, message: string) => {
      if (settled) return;
      settled = true;
      cleanup();
      if (connection) retire(connection);
      const error = new TransportError(problem, message, parser?.bodyBytes ?? 0, parser?.status);
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
      else resolve({ ...result.response, elapsedMs: performance.now() - started, ...(stray ? { stray } : {}) });
    };
    const onData = (chunk: Buffer) => handle(parser!.push(chunk));
    const onEnd = () => handle(parser!.end());
    const onError = (error: NodeJS.ErrnoException) => {
      // A server that answers early (a 400 to an oversized body) may close before the upload ends:
      // with the answer's status in hand the error is the upload's, and the end of the answer decides.
      if (parser?.status !== undefined && (error.code === 'EPIPE' || error.code === 'ECONNRESET'))
        return handle(parser.end());
      fail('connection', `${error.code ?? 'error'}: ${error.message}`);
    };
    const send = () => {
      parser = new ResponseParser(request.maxBytes, request.method);
      const socket = connection!.socket;
      socket.on('data', onData);
      socket.once('end', onEnd);
      socket.once('close', onEnd);
      socket.on('error', onError);
      socket.write(serialize(url, request), (error) => {
        if (!error) request.onSent?.();
      });
    };
    const onConnect = () => send();
    if (deadline.signal.aborted) return onAbort();
    deadline.signal.addEventListener('abort', onAbort, { once: true });
    acquire(url, fresh).then(({ connection: taken, reused: wasReused }) => {
      connection = taken;
      reused = wasReused;
      if (settled) {
        if (reused) release(taken);
        else retire(taken);
        return;
      }
      parser = new ResponseParser(request.maxBytes, request.method);
      if (reused) return send();
      const socket = taken.socket;
      socket.on('error', onError);
      socket.once('close', onEnd);
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
        socket.off('error', onError);
        socket.off('close', onEnd);
        onConnect();
      });
    });
  });
}

/**
 * Sends one request; resolves with the whole response or rejects with a TransportError. A request
 * that a kept-alive connection lost before any byte of its answer arrived is sent again once, on a
 * fresh connection (RawResponse.retried says so); a fresh connection that
 * fails, or one that fails after part of an answer, is the exchange's failure.
 */
export async function sendHttp(request: HttpRequest): Promise<RawResponse> {
  const url = new URL(request.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`not an http(s) URL: ${url.protocol}`);
  for (const [name, value] of Object.entries(request.headers)) {
    // As node:http refuses them: a line break in a header would write a header of its own choosing.
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || /[\r\n\0]/.test(value))
      throw new TypeError(`invalid header ${JSON.stringify(name)}`);
  }
  // Each attempt has the whole deadline: a retry only follows a connection lost before any byte of
  // an answer (at once, never after a wait), and may first wait for its slot under a pace.
  const deadlined = async (fresh: boolean) => {
    const started = performance.now();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(`within ${request.timeoutMs} ms`), request.timeoutMs);
    const onAbort = () => controller.abort(request.signal!.reason ?? new Error('aborted'));
    if (request.signal?.aborted) onAbort();
    request.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await attempt(url, request, fresh, started, controller);
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
    }
  };
  const first = await deadlined(false);
  if (!first.reusedBeforeAnyByte && !first.ambiguous) return first;
  try {
    await request.beforeRetry?.();
    const second = await deadlined(true);
    if (second.reusedBeforeAnyByte) throw second.reusedBeforeAnyByte;
    // Which exchange the extra answer belonged to is known only when the fresh connection shows it
    // again (second.stray names this request's operation); otherwise nobody is blamed on a guess.
    return { ...second, retried: true };
  } catch (error) {
    if (!(error instanceof TransportError)) throw error;
    throw new TransportError(
      error.problem,
      `${error.message} (sent again on a fresh connection after ${first.reusedBeforeAnyByte ? `a kept-alive one was lost before any byte of the answer: ${first.reusedBeforeAnyByte.message}` : `two answers came back on a kept-alive one: ${first.ambiguous}`})`,
      error.bytesRead,
      error.status,
      true,
    );
  }
}

/** Closes kept-alive connections so a process can exit promptly. */
export function closeIdleSockets(): void {
  for (const pool of pools.values()) for (const connection of [...pool.idle]) retire(connection);
}
