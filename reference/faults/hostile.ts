import type { ServerResponse } from 'node:http';
import { ALL_OPERATIONS } from './transform.ts';
import type { Fault } from './types.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

/** The longest any hostile fault holds a connection open. */
export const HOSTILE_MAX_MS = 120_000;

/** Size of the huge-body answer. */
export const HUGE_BODY_BYTES = 100 * 1024 * 1024;

/** The answer the slow-body fault dribbles out, one byte per second (valid JSON once complete). */
export const SLOW_BODY = `{"value":[]${' '.repeat(108)}}`;

/** The answer invalid-json sends: a JSON text cut off in the middle of an entity. */
export const TRUNCATED_JSON = '{"expr":"Y>2012","entities":[{"prob":0.0012,"Ti":"indexing by lat';

/**
 * Tracks the responses a hostile fault holds open, so that they end after HOSTILE_MAX_MS at the
 * latest and all at once when the server closes (server.close() waits for open connections).
 */
class OpenResponses {
  private readonly open = new Map<ServerResponse, () => void>();

  /** Holds `res` until `stop` runs, the client goes away, HOSTILE_MAX_MS pass or the server closes. */
  hold(res: ServerResponse, stop: () => void = () => {}): void {
    const timer = setTimeout(() => this.release(res, true), HOSTILE_MAX_MS);
    timer.unref();
    this.open.set(res, () => {
      clearTimeout(timer);
      stop();
    });
    res.once('close', () => this.release(res, false));
  }

  /** Stops the work for `res`; with `destroy`, also drops its connection. */
  release(res: ServerResponse, destroy: boolean): void {
    const stop = this.open.get(res);
    if (!stop) return;
    this.open.delete(res);
    stop();
    if (destroy) res.destroy();
  }

  /** Ends every response still held. */
  dispose(): void {
    for (const res of [...this.open.keys()]) this.release(res, true);
  }
}

function hang(): Fault {
  const held = new OpenResponses();
  return {
    name: 'hang',
    group: 'all',
    operations: ALL_OPERATIONS,
    deviation: 'hostile',
    description: 'accepts every request and never answers (the connection is dropped after 120 s)',
    raw(_req, res) {
      held.hold(res);
    },
    dispose: () => held.dispose(),
  };
}

function reset(): Fault {
  return {
    name: 'reset',
    group: 'all',
    operations: ALL_OPERATIONS,
    deviation: 'hostile',
    description: 'resets the TCP connection (RST) without sending any response',
    raw(req) {
      req.socket.resetAndDestroy();
    },
  };
}

function invalidJson(): Fault {
  return {
    name: 'invalid-json',
    group: 'all',
    operations: ALL_OPERATIONS,
    deviation: 'hostile',
    description: 'answers 200 application/json with a truncated, unparseable JSON body',
    raw(_req, res) {
      res.writeHead(200, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(TRUNCATED_JSON) });
      res.end(TRUNCATED_JSON);
    },
  };
}

function hugeBody(): Fault {
  const held = new OpenResponses();
  const item = `{"eventId":"${'0'.repeat(32)}","relatedEntities":[],"documentCount":1},`;
  const chunk = Buffer.from(item.repeat(Math.floor(65_536 / item.length)));
  return {
    name: 'huge-body',
    group: 'all',
    operations: ALL_OPERATIONS,
    deviation: 'hostile',
    description: 'answers 200 application/json streaming a 100 MB body (chunked) until the client goes away',
    raw(_req, res) {
      let sent = 0;
      let stopped = false;
      held.hold(res, () => {
        stopped = true;
      });
      res.writeHead(200, { 'Content-Type': JSON_TYPE });
      const pump = (): void => {
        while (!stopped) {
          if (sent >= HUGE_BODY_BYTES) {
            res.end('{}]}');
            held.release(res, false);
            return;
          }
          const piece = sent === 0 ? Buffer.concat([Buffer.from('{"value":['), chunk]) : chunk;
          sent += piece.length;
          if (!res.write(piece)) {
            res.once('drain', pump);
            return;
          }
        }
      };
      pump();
    },
    dispose: () => held.dispose(),
  };
}

function slowBody(): Fault {
  const held = new OpenResponses();
  return {
    name: 'slow-body',
    group: 'all',
    operations: ALL_OPERATIONS,
    deviation: 'hostile',
    description: `answers 200 application/json at once, then sends its ${SLOW_BODY.length}-byte body one byte per second`,
    raw(_req, res) {
      res.writeHead(200, { 'Content-Type': JSON_TYPE, 'Content-Length': SLOW_BODY.length });
      res.flushHeaders();
      let next = 0;
      const timer = setInterval(() => {
        res.write(SLOW_BODY[next]);
        next += 1;
        if (next === SLOW_BODY.length) {
          held.release(res, false);
          res.end();
        }
      }, 1000);
      timer.unref();
      held.hold(res, () => clearInterval(timer));
    },
    dispose: () => held.dispose(),
  };
}

/** How long the slow-answers fault holds back each evaluate answer: most of the 2 s deadline the sweep gives hostile faults. */
export const SLOW_ANSWER_MS = 1_700;

function evaluateSlowAnswers(): Fault {
  return {
    name: 'evaluate-slow-answers',
    group: 'academic',
    operations: ['evaluateGet', 'evaluatePost'],
    deviation: 'hostile',
    description: `answers evaluate correctly, but only after ${SLOW_ANSWER_MS} ms each (close to a 2 s deadline)`,
    async response(_ctx, result) {
      await new Promise((resolve) => setTimeout(resolve, SLOW_ANSWER_MS));
      return result;
    },
  };
}

/** The unrequested answer evaluate-stray-response sends after each real one, on the same connection. */
export const STRAY_RESPONSE = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}';

function evaluateStrayResponse(): Fault {
  return {
    name: 'evaluate-stray-response',
    group: 'academic',
    operations: ['evaluateGet', 'evaluatePost'],
    deviation: 'hostile',
    description: 'answers evaluate correctly, then writes a second, unrequested response on the same connection',
    response(_ctx, result) {
      // Content-Length declares the real answer; the stray one follows it on the wire.
      const payload = result.rawBody !== undefined ? String(result.rawBody) : JSON.stringify(result.body ?? '');
      return {
        ...result,
        rawBody: `${payload}${STRAY_RESPONSE}`,
        headers: { ...result.headers, 'content-length': String(Buffer.byteLength(payload)) },
      };
    },
  };
}

/** Transport-level faults for the harness's robustness tests (every operation, or evaluate for the last two). */
export function hostileFaults(): Fault[] {
  return [hang(), reset(), invalidJson(), hugeBody(), slowBody(), evaluateSlowAnswers(), evaluateStrayResponse()];
}
