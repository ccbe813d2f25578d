// A target for kgate's own tests: the embedded reference server behind a proxy that misbehaves on
// one path only, the way deployments and the proxies in front of them have been seen to. Every
// other operation is answered by the reference server untouched, so a test can require a failure
// named on that one operation and nothing anywhere else. Listens on 127.0.0.1 only.
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';

/** What the misbehaving path does. */
export type HostileBehaviour =
  | 'none'
  | 'deep-nesting'
  | 'slow-answer'
  | 'trickle'
  | 'endless-body'
  | 'interim-forever'
  | 'headers-byte-by-byte'
  | 'silent'
  | 'short-content-length'
  | 'huge-body'
  | 'gzip-bomb'
  | 'reset'
  | 'invalid-utf8'
  | 'huge-headers'
  | 'redirect-loop'
  | 'html-login'
  | 'many-entities'
  | 'many-keys'
  | 'long-array'
  | 'one-byte-chunks'
  | 'close-after-answer'
  | 'close-between-answers'
  | 'stray-response'
  | 'keep-alive-then-close';

/** The behaviours that abuse the connection rather than the answer (the answers are the reference server's). */
export const CONNECTION_BEHAVIOURS: readonly HostileBehaviour[] = [
  'close-after-answer',
  'close-between-answers',
  'stray-response',
  'keep-alive-then-close',
];

/** The unrequested response stray-response writes after each answer. */
export const STRAY = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}';

/** The behaviours that never let an answer complete: each costs the client one deadline. */
export const HANGING_BEHAVIOURS: readonly HostileBehaviour[] = [
  'silent',
  'trickle',
  'endless-body',
  'interim-forever',
  'headers-byte-by-byte',
  'short-content-length',
];

/** Nesting of the deep-nesting body: 400,000 arrays in under 1 MB. */
export const DEEP_NESTING = 400_000;
/** Size of the huge-body answer (streamed until the client goes away). */
export const HUGE_BODY_BYTES = 300 * 1024 * 1024;
/** Entities of the many-entities answer. */
export const MANY_ENTITIES = 300_000;
/** Keys of the one object of the many-keys answer (under 8 MiB, kgate's default size cap, so it is read whole). */
export const MANY_KEYS = 1_000_000;
/** Entries of the long-array answer's entities. */
export const LONG_ARRAY = 1_000_000;

export interface HostileTargetOptions {
  /** The base URL every request is forwarded to (the reference server). */
  upstream: string;
  behaviour: HostileBehaviour;
  /** The path that misbehaves, or `*` for every path; the others are forwarded untouched. */
  path?: string;
  /** slow-answer: how long each answer is held back, in milliseconds. */
  delayMs?: number;
}

/** A running hostile target. */
export interface HostileTarget {
  url: string;
  close(): Promise<void>;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** Starts a hostile target on 127.0.0.1 (an ephemeral port). */
export async function startHostileTarget(options: HostileTargetOptions): Promise<HostileTarget> {
  // Compressing the bomb blocks this process for seconds, and writing out 300,000 entities for every
  // request blocks it too: both made once, before the target takes requests, so that the other
  // operations, answered by the same process, keep their pace on a loaded machine.
  if (options.behaviour === 'gzip-bomb') gzipBomb();
  if (options.behaviour === 'many-entities') manyEntities();
  if (options.behaviour === 'many-keys') manyKeys();
  if (options.behaviour === 'long-array') longArray();
  const path = options.path ?? '/academic/v1.0/evaluate';
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
  };
  const upstream = new URL(options.upstream);
  const forward = (
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
    delayMs = 0,
    afterAnswer?: (socket: Socket) => void,
    write?: (answer: IncomingMessage, bytes: Buffer) => void,
  ) => {
    const out = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: `${upstream.pathname.replace(/\/$/, '')}${req.url}`,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () =>
          later(delayMs, () => {
            if (res.destroyed) return;
            if (write) return write(answer, Buffer.concat(chunks));
            const socket = req.socket;
            res.writeHead(answer.statusCode ?? 502, { ...answer.headers, connection: 'keep-alive' });
            res.end(Buffer.concat(chunks), () => afterAnswer?.(socket));
          }),
        );
      },
    );
    out.on('error', () => res.destroy());
    out.end(body);
  };
  const misbehave = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    switch (options.behaviour) {
      case 'deep-nesting': {
        const text = `{"expr":"Y>2012","entities":[${'['.repeat(DEEP_NESTING)}${']'.repeat(DEEP_NESTING)}]}`;
        res.writeHead(200, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(text) });
        res.end(text);
        return;
      }
      case 'slow-answer':
        forward(req, res, body, options.delayMs ?? 8_000);
        return;
      // A kept-alive connection closed 1 to 5 ms after the answer: HTTP/1.1 allows it at any moment.
      case 'close-after-answer':
        forward(req, res, body, 0, (socket) => later(1 + Math.random() * 4, () => socket.destroy()));
        return;
      // Closed at a random moment before the next answer (or never, when the next request comes first).
      case 'close-between-answers':
        // Around the client's rest before reuse (SETTLE_MS, 25 ms): some closes race a request sent on it.
        forward(req, res, body, 0, (socket) => later(15 + Math.random() * 25, () => socket.destroy()));
        return;
      case 'stray-response':
        forward(req, res, body, 0, (socket) => socket.write(STRAY));
        return;
      // Says keep-alive, then closes at once.
      case 'keep-alive-then-close':
        forward(req, res, body, 0, (socket) => socket.destroy());
        return;
      case 'trickle': {
        res.writeHead(200, { 'Content-Type': JSON_TYPE, 'Content-Length': 200 });
        res.flushHeaders();
        const text = `{"expr":"Y>2012","entities":[]${' '.repeat(200)}`;
        let next = 0;
        const drip = () => {
          if (res.destroyed || next >= 200) return;
          res.write(text[next++]!);
          later(1_000, drip);
        };
        drip();
        return;
      }
      // A chunked body that never ends: 1 KB every 20 ms (50 KB/s, far below the size cap in any deadline).
      case 'endless-body': {
        res.writeHead(200, { 'Content-Type': JSON_TYPE });
        res.write('{"expr":"Y>2012","entities":[');
        const kilobyte = ' '.repeat(1024);
        const pour = () => {
          if (res.destroyed) return;
          res.write(kilobyte);
          later(20, pour);
        };
        pour();
        return;
      }
      // 102 Processing, again and again, and never the final answer.
      case 'interim-forever': {
        const socket = req.socket;
        const again = () => {
          if (socket.destroyed) return;
          socket.write('HTTP/1.1 102 Processing\r\n\r\n');
          later(100, again);
        };
        again();
        return;
      }
      // A valid head and body, one byte every 50 ms: the head alone outlasts any deadline kgate uses.
      case 'headers-byte-by-byte': {
        const socket = req.socket;
        const text = '{"expr":"Y>2012","entities":[]}';
        const head = `HTTP/1.1 200 OK\r\nContent-Type: ${JSON_TYPE}\r\nContent-Length: ${text.length}\r\nX-Padding: ${'x'.repeat(2000)}\r\n\r\n`;
        const bytes = Buffer.from(head + text);
        let next = 0;
        const drip = () => {
          if (socket.destroyed || next >= bytes.length) return;
          socket.write(bytes.subarray(next, ++next));
          later(50, drip);
        };
        drip();
        return;
      }
      case 'silent':
        return;
      case 'short-content-length':
        res.writeHead(200, { 'Content-Type': JSON_TYPE, 'Content-Length': 10_000 });
        res.write('{"expr":"Y>2012","entities":[');
        return;
      case 'huge-body': {
        res.writeHead(200, { 'Content-Type': JSON_TYPE });
        const chunk = Buffer.alloc(1024 * 1024, 0x20);
        let sent = 0;
        const pump = () => {
          while (!res.destroyed && sent < HUGE_BODY_BYTES) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          if (!res.destroyed) res.end();
        };
        res.write('{"expr":"Y>2012","entities":[');
        pump();
        return;
      }
      case 'gzip-bomb': {
        // 1 GiB of zeros compresses to about 1 MB; kgate asks for no encoding and must never inflate it.
        const bomb = gzipBomb();
        res.writeHead(200, { 'Content-Type': JSON_TYPE, 'Content-Encoding': 'gzip', 'Content-Length': bomb.length });
        res.end(bomb);
        return;
      }
      case 'reset':
        req.socket.resetAndDestroy();
        return;
      case 'invalid-utf8': {
        const bytes = Buffer.concat([
          Buffer.from('{"expr":"'),
          Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1]),
          Buffer.from('",'),
        ]);
        res.writeHead(200, { 'Content-Type': JSON_TYPE, 'Content-Length': bytes.length });
        res.end(bytes);
        return;
      }
      case 'huge-headers':
        res.writeHead(200, { 'Content-Type': JSON_TYPE, 'X-Padding': 'x'.repeat(256 * 1024) });
        res.end('{}');
        return;
      case 'redirect-loop':
        res.writeHead(302, { Location: req.url ?? '/', 'Content-Length': 0 });
        res.end();
        return;
      case 'html-login': {
        const page =
          '<!doctype html><html><head><title>Sign in</title></head><body><form action="/login">…</form></body></html>';
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(page) });
        res.end(page);
        return;
      }
      case 'many-entities':
      case 'many-keys':
      case 'long-array': {
        const body = { 'many-entities': manyEntities, 'many-keys': manyKeys, 'long-array': longArray }[
          options.behaviour
        ]();
        res.writeHead(200, { 'Content-Type': JSON_TYPE, 'Content-Length': body.length });
        res.end(body);
        return;
      }
      // The reference server's answer, in chunks of one byte each, each written once the one before
      // it has left: legal HTTP/1.1 framing (RFC 9112 7.1), only slow.
      case 'one-byte-chunks':
        forward(req, res, body, 0, undefined, (answer, bytes) => {
          const { 'content-length': _length, 'transfer-encoding': _encoding, ...headers } = answer.headers;
          res.writeHead(answer.statusCode ?? 502, {
            ...headers,
            connection: 'keep-alive',
            'transfer-encoding': 'chunked',
          });
          let next = 0;
          const drip = () => {
            if (res.destroyed) return;
            if (next >= bytes.length) return void res.end();
            res.write(bytes.subarray(next, ++next), drip);
          };
          drip();
        });
        return;
      default:
        forward(req, res, body);
    }
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const target = path === '*' || (req.url ?? '').split('?')[0] === path;
      if (target && options.behaviour !== 'none') misbehave(req, res, body);
      else forward(req, res, body);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let bomb: Buffer | undefined;
/** 1 GiB of zeros, gzipped (computed once, in 64 MiB steps to keep the test's own memory small). */
let many: Buffer | undefined;
/** The many-entities answer: MANY_ENTITIES entities (about 19 MB), made once. */
function manyEntities(): Buffer {
  const entity = '{"logprob":-17.1,"prob":3.7e-8,"Id":2157025439,"Ti":"a paper"},';
  many ??= Buffer.from(`{"expr":"Y>2012","entities":[${entity.repeat(MANY_ENTITIES - 1)}${entity.slice(0, -1)}]}`);
  return many;
}

let keys: Buffer | undefined;
/**
 * The many-keys answer: one entity holding MANY_KEYS distinct keys (of 1 to 4 printable characters,
 * about 8 MB), and no prob: parsed, it is a dictionary of a million properties.
 */
function manyKeys(): Buffer {
  if (keys) return keys;
  // The printable ASCII characters a JSON string holds unescaped.
  const alphabet = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).filter(
    (char) => char !== '"' && char !== '\\',
  );
  const parts: string[] = [];
  for (let n = 0, length = 1, first = 0; parts.length < MANY_KEYS; n++) {
    if (n - first === alphabet.length ** length) {
      first = n;
      length++;
    }
    let key = '';
    for (let rest = n - first, i = 0; i < length; i++, rest = Math.floor(rest / alphabet.length))
      key += alphabet[rest % alphabet.length];
    parts.push(`"${key}":0`);
  }
  keys = Buffer.from(`{"expr":"Y>2012","entities":[{${parts.join(',')}}]}`);
  return keys;
}

let long: Buffer | undefined;
/** The long-array answer: LONG_ARRAY empty entities (3 MB), none with its prob. */
function longArray(): Buffer {
  long ??= Buffer.from(`{"expr":"Y>2012","entities":[${'{},'.repeat(LONG_ARRAY - 1)}{}]}`);
  return long;
}

function gzipBomb(): Buffer {
  bomb ??= gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
  // 16 gzip members in a row decode as one stream of their concatenated contents.
  return Buffer.concat(Array.from({ length: 16 }, () => bomb!));
}
