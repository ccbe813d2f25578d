// A proxy for tests that need to see what reaches a target: it forwards every request to an
// upstream server on 127.0.0.1 and tells the test of each arrival (to count or time-stamp it) and,
// if asked, of the status each was answered.
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LONG_HEADER_BYTES } from '../reference/index.ts';

export interface ArrivalsProxy {
  /** `http://127.0.0.1:<port>`, to point kgate at. */
  url: string;
  close(): void;
}

/**
 * Starts a proxy to `upstreamUrl` that calls `onArrival` as each request arrives, before forwarding
 * it. The whole body is read before it is forwarded: a server that answers an oversized body early
 * and closes must not reset the client's upload half way (a quirk of proxying, not of kgate). It
 * takes request heads as long as the reference server does: with Node's default 16 KB, a long
 * generated GET would get the proxy's own 431 and never be seen arriving. `onAnswer`, if given, is
 * told the upstream's status for each request as its answer's head arrives; `delayMs` holds each request that long
 * before it is forwarded (a slow deployment).
 */
export async function startArrivalsProxy(
  upstreamUrl: string,
  onArrival: (request: IncomingMessage) => void,
  onAnswer?: (request: IncomingMessage, status: number) => void,
  options: { delayMs?: number } = {},
): Promise<ArrivalsProxy> {
  const upstream = new URL(upstreamUrl);
  const proxy = createServer({ maxHeaderSize: LONG_HEADER_BYTES }, (req, res) => {
    onArrival(req);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      // A slow deployment: every request waits this long before it is forwarded.
      if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
      if (res.destroyed) return;
      const { connection: _, ...headers } = req.headers;
      const forward = httpRequest(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
        (answer) => {
          onAnswer?.(req, answer.statusCode ?? 502);
          const { connection: __, ...answerHeaders } = answer.headers;
          res.writeHead(answer.statusCode ?? 502, answerHeaders);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.destroy());
      forward.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    close() {
      proxy.closeAllConnections();
      proxy.close();
    },
  };
}
