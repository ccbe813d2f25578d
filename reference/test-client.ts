import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';

/** One answer as the tests see it. */
export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The header fields as received: names as written, in order (node:http's rawHeaders). */
  rawHeaders: string[];
  text: string;
  /** The parsed body, or undefined when the body is not JSON. */
  json: unknown;
}

/** Sends one request with node:http (no client-side URL normalization) and reads the whole answer. */
export function send(
  base: string,
  path: string,
  options: { method?: string; key?: string; body?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key !== undefined) headers['Ocp-Apim-Subscription-Key'] = options.key;
    if (options.body !== undefined) {
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
      // A chunked body has no length: a request with both is malformed (RFC 9112, 6.3), which Node's
      // own parser refuses with a 400 of its own before the server sees it (Node 24 resets the
      // connection under the body still being sent).
      if (headers['transfer-encoding'] === undefined)
        headers['content-length'] = String(Buffer.byteLength(options.body));
    }
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
        headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, rawHeaders: res.rawHeaders, text, json });
        });
        res.on('error', reject);
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer to ${path} within 10 s`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Builds a query string with encodeURIComponent, keeping parameter order. */
export function qs(params: Record<string, string | number>): string {
  return Object.entries(params)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`)
    .join('&');
}

/** One answer read off a raw connection. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/**
 * A raw TCP connection to a server, written and read as a front server would: the test decides
 * when each byte of a request goes out, and sees whether an answer came before the body was sent,
 * whether the connection stays open and whether writing to it failed.
 */
export class RawConnection {
  private readonly socket: Socket;
  private buffer = Buffer.alloc(0);
  private waiter: (() => void) | undefined;
  /** Error codes the connection reported (EPIPE, ECONNRESET: the server closed under a write). */
  readonly errors: string[] = [];
  /** True once the server ended or closed the connection. */
  ended = false;

  constructor(base: string) {
    const url = new URL(base);
    this.socket = connect(Number(url.port), url.hostname);
    this.socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.waiter?.();
    });
    this.socket.on('error', (error: NodeJS.ErrnoException) => {
      this.errors.push(error.code ?? error.message);
      this.waiter?.();
    });
    this.socket.on('close', () => {
      this.ended = true;
      this.waiter?.();
    });
  }

  /** Bytes received and not yet read as an answer. */
  get pending(): number {
    return this.buffer.length;
  }

  /** Writes bytes and resolves once they are handed to the kernel (or the write failed). */
  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.destroyed) return resolve();
      this.socket.write(data, () => resolve());
    });
  }

  /** The next whole answer (framed by Content-Length), or an error after `timeoutMs`. */
  async answer(timeoutMs = 10_000): Promise<RawAnswer> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const head = this.buffer.indexOf('\r\n\r\n');
      if (head >= 0) {
        const [statusLine = '', ...lines] = this.buffer.subarray(0, head).toString('latin1').split('\r\n');
        const headers: Record<string, string> = {};
        for (const line of lines) {
          const colon = line.indexOf(':');
          headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
        }
        const length = Number(headers['content-length'] ?? 0);
        if (this.buffer.length >= head + 4 + length) {
          const text = this.buffer.subarray(head + 4, head + 4 + length).toString('utf8');
          this.buffer = this.buffer.subarray(head + 4 + length);
          return { status: Number(statusLine.split(' ')[1]), headers, text };
        }
      }
      if (this.ended) throw new Error(`the connection closed with ${this.buffer.length} bytes of an answer`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no whole answer within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiter = undefined;
    }
  }

  /** Resolves once the server has closed the connection, or after `timeoutMs` (then false). */
  async closed(timeoutMs = 2000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    return this.ended;
  }

  destroy(): void {
    this.socket.destroy();
  }
}
