// A front server for tests on 127.0.0.1 that records the head of every request it receives (method,
// target, headers as received) and hands the request on to an upstream server (the reference
// server), as a gateway in front of a deployment would: what kgate sends is seen as it arrives.
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the front received it. */
export interface SeenRequest {
  method: string;
  /** The request target: path and query. */
  target: string;
  /** Header names lower-case, as node:http reads them. */
  headers: IncomingHttpHeaders;
}

/** A running recording front. */
export interface RecordingFront {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Every request received since the start (or the last `clear`). */
  seen: SeenRequest[];
  clear(): void;
  close(): Promise<void>;
}

/** Starts a front on 127.0.0.1 that records each request and forwards it to `upstream`. */
export async function startRecordingFront(upstream: string): Promise<RecordingFront> {
  const target = new URL(upstream);
  const seen: SeenRequest[] = [];
  const server = createServer((incoming, outgoing) => {
    seen.push({ method: incoming.method ?? '', target: incoming.url ?? '', headers: { ...incoming.headers } });
    const forwarded = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: target.host },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502, { 'content-type': 'text/plain' });
      outgoing.end('upstream unreachable');
    });
    incoming.pipe(forwarded);
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    clear: () => {
      seen.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
