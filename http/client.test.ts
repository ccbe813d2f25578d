import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { closeIdleSockets, SETTLE_MS, sendHttp, TransportError } from './client.ts';

/** Tiny hostile servers, one per path, so the client is proven without the reference server. */
const BEHAVIOURS: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  '/ok': (_req, res) => res.end('{"ok":true}'),
  '/hang': () => {},
  '/reset': (req) => req.socket.destroy(),
  '/huge': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    const pump = () => {
      while (res.write(chunk)) if (res.destroyed) return;
      if (!res.destroyed) res.once('drain', pump);
    };
    pump();
  },
  '/slow': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const timer = setInterval(() => res.write(' '), 50);
    res.on('close', () => clearInterval(timer));
  },
  // Answers at once, then holds the process (the client's too: one event loop) past the client's deadline.
  '/answer-then-block': (_req, res) => {
    res.end('{"ok":true}');
    const until = Number(new URL(_req.url ?? '', 'http://x').searchParams.get('until'));
    while (performance.timeOrigin + performance.now() < until);
  },
  '/half': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
    res.write('{"partial":');
    setTimeout(() => res.socket?.destroy(), 20);
  },
};

let server: Server;
let base: string;
before(async () => {
  server = createServer((req, res) => BEHAVIOURS[new URL(req.url ?? '', 'http://x').pathname]?.(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

test('sendHttp turns every broken transport into a named problem within the deadline', async () => {
  // The hangs meet a short deadline. The others get a long one, far above what reading two
  // megabytes takes on a loaded machine: their own problem, not a timeout, must end them.
  const HANG_MS = 500;
  const cases = [
    { given: '/hang', want: 'timeout', timeoutMs: HANG_MS },
    { given: '/reset', want: 'connection', timeoutMs: 10_000 },
    { given: '/huge', want: 'too-large', timeoutMs: 10_000 },
    { given: '/slow', want: 'timeout', timeoutMs: HANG_MS },
    { given: '/half', want: 'connection', timeoutMs: 10_000 },
  ];
  for (const { given, want, timeoutMs } of cases) {
    const started = performance.now();
    await assert.rejects(
      sendHttp({ method: 'GET', url: `${base}${given}`, headers: {}, timeoutMs, maxBytes: 2 * 1024 * 1024 }),
      (error: unknown) => error instanceof TransportError && error.problem === want && !error.retried,
      `${given} should fail as ${want}`,
    );
    // A hang ends at its deadline: ten times it is a loaded machine's margin, far from never.
    if (want === 'timeout')
      assert.ok(performance.now() - started < 10 * HANG_MS, `${given} must fail within bounded time`);
  }
});

test('a failure tells how many bytes of the answer came back, and the first byte is announced as it arrives', async () => {
  const cases = [
    { given: '/hang', want: { firstBytes: 0, received: false } },
    { given: '/slow', want: { firstBytes: 1, received: true } },
  ];
  for (const { given, want } of cases) {
    let firstBytes = 0;
    const error = await sendHttp({
      method: 'GET',
      url: `${base}${given}`,
      headers: {},
      timeoutMs: 300,
      maxBytes: 1024,
      onFirstByte: () => firstBytes++,
    }).catch((error: unknown) => error);
    assert.ok(error instanceof TransportError && error.problem === 'timeout', `${given} times out`);
    assert.deepEqual({ firstBytes, received: error.received > 0 }, want, given);
  }
  let firstBytes = 0;
  await sendHttp({
    method: 'GET',
    url: `${base}/ok`,
    headers: {},
    timeoutMs: 10_000,
    maxBytes: 1024,
    onFirstByte: () => firstBytes++,
  });
  assert.equal(firstBytes, 1, 'an answer announces its first byte once');
});

test('an answer that arrived while this process was held up past the deadline is read, not timed out', async () => {
  // The server (this process) answers at once, then holds the event loop until twice the deadline
  // has passed: the answer waits in the socket, and the deadline's timer is overdue when the loop
  // runs again. The deadline measures the target: the answer had come well within it.
  const DEADLINE_MS = 2_000;
  const until = performance.timeOrigin + performance.now() + 2 * DEADLINE_MS;
  const answer = await sendHttp({
    method: 'GET',
    url: `${base}/answer-then-block?until=${until}`,
    headers: {},
    timeoutMs: DEADLINE_MS,
    maxBytes: 1024,
  });
  assert.equal(answer.body.toString(), '{"ok":true}');
});

test('sendHttp reads a whole response', async () => {
  const response = await sendHttp({
    method: 'GET',
    url: `${base}/ok`,
    headers: {},
    timeoutMs: 10_000,
    maxBytes: 1_000,
  });
  assert.equal(response.status, 200);
  assert.equal(response.body.toString(), '{"ok":true}');
});

/** A raw TCP server whose `onRequest(socket, n)` answers the n-th request (1-based) of each connection; counts every request. */
async function rawServer(onRequest: (socket: Socket, n: number) => void) {
  let requests = 0;
  const sockets = new Set<Socket>();
  const raw = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    let n = 0;
    let pending = '';
    socket.on('data', (chunk) => {
      pending += chunk.toString('latin1');
      while (pending.includes('\r\n\r\n')) {
        pending = pending.slice(pending.indexOf('\r\n\r\n') + 4);
        requests++;
        onRequest(socket, ++n);
      }
    });
  });
  await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(raw.address() as AddressInfo).port}`,
    requests: () => requests,
    close() {
      for (const socket of sockets) socket.destroy();
      raw.close();
    },
  };
}

const answer = (body: string, extra = '') =>
  `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;
const get = (url: string, extra: Partial<Parameters<typeof sendHttp>[0]> = {}) =>
  sendHttp({ method: 'GET', url, headers: {}, timeoutMs: 10_000, maxBytes: 10_000, ...extra });
const rest = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS + 20));

test('a request a kept-alive connection lost before any byte of its answer is sent again, once, on a fresh connection', async () => {
  // Answers the first request of each connection; closes a connection when a second request comes on it.
  const server = await rawServer((socket, n) => (n === 1 ? socket.write(answer('{"n":1}')) : socket.destroy()));
  try {
    assert.equal((await get(`${server.url}/a`)).retried, undefined, 'a fresh connection needs no retry');
    await rest();
    const again = await get(`${server.url}/b`);
    assert.deepEqual([again.status, again.body.toString(), again.retried], [200, '{"n":1}', true]);
    assert.equal(server.requests(), 3, 'one request, then one lost on the reused connection and its one retry');
  } finally {
    server.close();
  }
});

test('the wait before a retry is handed the request signal: stopped while it waits, the request ends at once, unsent again', async () => {
  const server = await rawServer((socket, n) => (n === 1 ? socket.write(answer('{"n":1}')) : socket.destroy()));
  try {
    await get(`${server.url}/warm`);
    await rest();
    const stop = new AbortController();
    let handed: AbortSignal | undefined;
    const started = performance.now();
    await assert.rejects(
      get(`${server.url}/x`, {
        signal: stop.signal,
        // A pace's wait: it ends when its slot comes (here only after 5 s), or at once once stopped.
        beforeRetry: (signal) => {
          handed = signal;
          setTimeout(() => stop.abort(new Error('stopped')), 50);
          return new Promise((resolve) => {
            const slot = setTimeout(resolve, 5_000);
            signal?.addEventListener('abort', () => resolve(clearTimeout(slot)), { once: true });
          });
        },
      }),
      (error: unknown) => error instanceof TransportError && error.retried,
    );
    assert.equal(handed, stop.signal, "the wait is handed the request's signal");
    // Stopped after 50 ms; half the slot's wait is a loaded machine's margin.
    assert.ok(performance.now() - started < 2_500, 'the request ends when stopped, not when the slot would have come');
    assert.equal(server.requests(), 2, 'the warm-up and the lost request: nothing is sent again once stopped');
  } finally {
    server.close();
  }
});

test('a reset on a fresh connection, a reset after part of an answer, and a retry that fails again are failures', async () => {
  const cases: {
    given: string;
    server: (socket: Socket, n: number) => void;
    warm: boolean;
    want: { retried: boolean; requests: number };
  }[] = [
    {
      given: 'reset on a fresh connection',
      server: (socket) => socket.resetAndDestroy(),
      warm: false,
      want: { retried: false, requests: 1 },
    },
    {
      given: 'reset after part of an answer on a reused connection',
      server: (socket, n) => {
        if (n === 1) socket.write(answer('{"n":1}'));
        else {
          socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"partial":');
          setTimeout(() => socket.resetAndDestroy(), 20);
        }
      },
      warm: true,
      want: { retried: false, requests: 2 },
    },
  ];
  for (const { given, server: behaviour, warm, want } of cases) {
    const server = await rawServer(behaviour);
    try {
      if (warm) {
        await get(`${server.url}/warm`);
        await rest();
      }
      await assert.rejects(
        get(`${server.url}/x`),
        (error: unknown) =>
          error instanceof TransportError && error.problem === 'connection' && error.retried === want.retried,
        given,
      );
      assert.equal(server.requests(), want.requests, `${given}: requests the server saw`);
    } finally {
      server.close();
    }
  }
  // The retry fails too: the first connection answers once, every later request is refused by a reset.
  let connections = 0;
  const server = await rawServer((socket, n) => {
    if (n === 1 && ++connections === 1) socket.write(answer('{"n":1}'));
    else socket.resetAndDestroy();
  });
  try {
    await get(`${server.url}/warm`);
    await rest();
    await assert.rejects(
      get(`${server.url}/x`),
      (error: unknown) => error instanceof TransportError && error.problem === 'connection' && error.retried,
    );
    assert.equal(server.requests(), 3, 'the warm-up, the lost request and exactly one retry');
  } finally {
    server.close();
  }
});

test('bytes after the end of an answer close the connection and are reported, never read as the next answer', async () => {
  const stray = answer('{"stray":true}');
  const cases = [
    { given: 'in the same write as the answer', later: false },
    { given: 'a moment after the answer', later: true },
  ];
  for (const { given, later } of cases) {
    const server = await rawServer((socket, n) => {
      if (later) {
        socket.write(answer(`{"n":${n}}`));
        setTimeout(() => socket.write(stray), 5);
      } else socket.write(answer(`{"n":${n}}`) + stray);
    });
    try {
      const reported: string[] = [];
      const first = await get(`${server.url}/a`, { onStray: (detail) => reported.push(detail) });
      await rest();
      const second = await get(`${server.url}/b`);
      assert.equal(first.body.toString(), '{"n":1}', given);
      assert.equal(
        second.body.toString(),
        '{"n":1}',
        `${given}: the next request has its own answer, on a new connection`,
      );
      const seen = later ? reported : [first.stray];
      assert.equal(seen.length, 1, `${given}: reported once`);
      assert.match(seen[0] ?? '', /byte\(s\).*HTTP\/1\.1 200 OK/, given);
    } finally {
      server.close();
    }
  }
});

test('a 408 on an idle connection is the server closing it, not stray bytes', async () => {
  const server = await rawServer((socket) => {
    socket.write(answer('{"n":1}'));
    setTimeout(() => socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n'), 5);
  });
  try {
    const reported: string[] = [];
    await get(`${server.url}/a`, { onStray: (detail) => reported.push(detail) });
    await rest();
    assert.equal((await get(`${server.url}/b`)).status, 200);
    assert.deepEqual(reported, []);
  } finally {
    server.close();
  }
});

test('a kept-alive connection carries one exchange at a time, while servers close idle connections around it', async () => {
  // A server that closes each idle connection 20 to 40 ms after its answer (around the 25 ms a
  // connection rests), and notes a request that arrives while the previous one on its connection
  // is still unanswered: two exchanges on one connection at once.
  let overlaps = 0;
  const sockets = new Set<Socket>();
  const raw = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    let pending = '';
    let busy = false;
    let closer: NodeJS.Timeout | undefined;
    socket.on('data', (chunk) => {
      pending += chunk.toString('latin1');
      while (pending.includes('\r\n\r\n')) {
        pending = pending.slice(pending.indexOf('\r\n\r\n') + 4);
        if (busy) overlaps++;
        busy = true;
        clearTimeout(closer);
        setTimeout(() => {
          busy = false;
          socket.write(answer('{"ok":true}'));
          closer = setTimeout(() => socket.destroy(), 20 + Math.random() * 20);
        }, Math.random() * 3);
      }
    });
  });
  await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/x`;
  try {
    const worker = async () => {
      for (let i = 0; i < 40; i++) {
        const response = await get(url).catch((error: unknown) => error);
        if (response instanceof TransportError) continue;
        assert.equal((response as { status: number }).status, 200);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 40));
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    assert.equal(overlaps, 0, 'no connection was handed to two requests at once');
  } finally {
    for (const socket of sockets) socket.destroy();
    raw.close();
    closeIdleSockets();
  }
});

test('sendHttp reads chunked bodies and bodies framed by the end of the connection', async () => {
  const cases = [
    {
      given: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{"a"\r\n3\r\n:1}\r\n0\r\n\r\n',
      want: '{"a":1}',
    },
    {
      given: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7;ext=1\r\n{"b":2}\r\n0\r\nX-Trailer: t\r\n\r\n',
      want: '{"b":2}',
    },
    { given: 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n{"c":3}', want: '{"c":3}' },
    { given: 'HTTP/1.0 200 OK\r\n\r\n{"d":4}', want: '{"d":4}', close: true },
  ];
  for (const { given, want, close } of cases) {
    const server = await rawServer((socket) => (close ? socket.end(given) : socket.write(given)));
    try {
      const response = await get(`${server.url}/x`);
      assert.deepEqual([response.status, response.body.toString(), response.stray], [200, want, undefined], given);
    } finally {
      server.close();
    }
  }
});

test('sendHttp speaks HTTPS, reuses the connection and verifies the certificate', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kgate-tls-'));
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
    ],
    { stdio: 'ignore' },
  );
  if (made.status !== 0) return t.skip('openssl is not available to make a certificate');
  const tls = createHttpsServer(
    { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
    (req, res) => res.end(JSON.stringify({ url: req.url, port: req.socket.remotePort })),
  );
  await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
  const url = `https://localhost:${(tls.address() as AddressInfo).port}/x?a=1`;
  try {
    await assert.rejects(
      get(url),
      (error: unknown) => error instanceof TransportError && /SELF_SIGNED/.test(error.message),
    );
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    const first = await get(url);
    await rest();
    const second = await get(url);
    assert.equal(JSON.parse(first.body.toString()).url, '/x?a=1');
    assert.equal(
      JSON.parse(second.body.toString()).port,
      JSON.parse(first.body.toString()).port,
      'the same connection',
    );
  } finally {
    delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    closeIdleSockets();
    tls.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
