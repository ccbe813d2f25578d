import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { sendHttp, TransportError } from './http.ts';

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
  '/half': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
    res.write('{"partial":');
    setTimeout(() => res.socket?.destroy(), 20);
  },
};

let server: Server;
let base: string;
before(async () => {
  server = createServer((req, res) => BEHAVIOURS[req.url ?? '']?.(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

test('sendHttp turns every broken transport into a named problem within the deadline', async () => {
  const cases = [
    { given: '/hang', want: 'timeout' },
    { given: '/reset', want: 'connection' },
    { given: '/huge', want: 'too-large' },
    { given: '/slow', want: 'timeout' },
    { given: '/half', want: 'connection' },
  ];
  for (const { given, want } of cases) {
    const started = performance.now();
    await assert.rejects(
      sendHttp({ method: 'GET', url: `${base}${given}`, headers: {}, timeoutMs: 500, maxBytes: 2 * 1024 * 1024 }),
      (error: unknown) => error instanceof TransportError && error.problem === want,
      `${given} should fail as ${want}`,
    );
    assert.ok(performance.now() - started < 2_000, `${given} must fail within bounded time`);
  }
});

test('sendHttp reads a whole response', async () => {
  const response = await sendHttp({ method: 'GET', url: `${base}/ok`, headers: {}, timeoutMs: 2_000, maxBytes: 1_000 });
  assert.equal(response.status, 200);
  assert.equal(response.body.toString(), '{"ok":true}');
});
