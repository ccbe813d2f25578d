import http from 'node:http';
import https from 'node:https';

/** A response read in full (up to the size cap). */
export interface RawResponse {
  status: number;
  /** Lower-case header names; repeated headers joined with ', '. */
  headers: Record<string, string>;
  body: Buffer;
  /** Time from sending the request to the last byte, in milliseconds. */
  elapsedMs: number;
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
  /** Deadline for the whole exchange (connect, headers, body), in milliseconds. */
  timeoutMs: number;
  /** Largest body read; a longer body is abandoned and reported. */
  maxBytes: number;
  /** Ends the exchange early as a timeout, with the abort reason as its message. */
  signal?: AbortSignal;
  /** Called once the request has been handed to the socket in full (what --max-rps paces by). */
  onSent?: () => void;
}

const agentOptions = { keepAlive: true, maxSockets: 64 };
const httpAgent = new http.Agent(agentOptions);
const httpsAgent = new https.Agent(agentOptions);

/** Sends one request; resolves with the whole response or rejects with a TransportError. */
export function sendHttp(request: HttpRequest): Promise<RawResponse> {
  const url = new URL(request.url);
  const transport = url.protocol === 'https:' ? https : http;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let settled = false;
    let status: number | undefined;
    let bytes = 0;
    const finish = (error: TransportError | undefined, response?: RawResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        req.destroy();
        reject(error);
      } else resolve(response!);
    };
    const headers: Record<string, string | number> = { ...request.headers };
    if (request.body !== undefined) headers['content-length'] = Buffer.byteLength(request.body);
    const req = transport.request(url, {
      method: request.method,
      headers,
      agent: url.protocol === 'https:' ? httpsAgent : httpAgent,
    });
    const timer = setTimeout(() => {
      const phase = status === undefined ? 'no response headers' : `body incomplete after ${bytes} bytes`;
      finish(new TransportError('timeout', `${phase} within ${request.timeoutMs} ms`, bytes, status));
    }, request.timeoutMs);
    request.signal?.addEventListener(
      'abort',
      () => {
        const reason = request.signal!.reason;
        finish(new TransportError('timeout', reason instanceof Error ? reason.message : String(reason), bytes, status));
      },
      { once: true },
    );
    req.on('response', (res) => {
      status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > request.maxBytes) {
          finish(new TransportError('too-large', `body exceeds the ${request.maxBytes}-byte cap`, bytes, status));
          res.destroy();
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => {
        const joined: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) joined[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        finish(undefined, {
          status: status!,
          headers: joined,
          body: Buffer.concat(chunks),
          elapsedMs: performance.now() - started,
        });
      });
      res.on('error', (error) =>
        finish(
          new TransportError('connection', `connection broke while reading the body: ${error.message}`, bytes, status),
        ),
      );
      res.on('aborted', () =>
        finish(new TransportError('connection', `connection closed after ${bytes} body bytes`, bytes, status)),
      );
    });
    if (request.onSent) req.once('finish', request.onSent);
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (settled) return;
      // A server that answers early (e.g. 400 to an oversized body) may close before the upload ends;
      // in that case the response has already arrived and the error is the upload's, not the exchange's.
      if (status !== undefined && (error.code === 'EPIPE' || error.code === 'ECONNRESET')) return;
      finish(new TransportError('connection', `${error.code ?? 'error'}: ${error.message}`, bytes, status));
    });
    if (request.body !== undefined) req.end(request.body);
    else req.end();
  });
}

/** Closes kept-alive sockets so a process can exit promptly. */
export function closeIdleSockets(): void {
  httpAgent.destroy();
  httpsAgent.destroy();
}
