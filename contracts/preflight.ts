// What every command that judges a deployment asks before it starts: can the target be reached
// along the run's route (directly, or through the proxy), does TLS hold, does anything answer as
// the interface, is the key accepted. A problem here is one line and exit 2, not a run of failures.
import { connect } from 'node:net';
import { currentNetwork, type RawResponse, sendHttp, TransportError } from '../http/client.ts';
import { portOf, proxyFor } from '../http/network.ts';
import type { RequestPace } from '../http/pacing.ts';

/** Resolves when a TCP connection to the host and port opens; rejects with the reason otherwise. */
function tcpReachable(host: string, port: number, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no TCP connection to ${host}:${port} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.end();
      resolve();
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new Error(`${error.code ?? 'error'} connecting to ${host}:${port}`));
    });
  });
}

/**
 * Resolves when a TCP connection to the target opens; rejects with the reason otherwise. A target
 * reached through a proxy is not dialled directly (the route may not allow it): the preflight's
 * requests go through the proxy and name it when it cannot be reached.
 */
export async function checkReachable(baseUrl: string, timeoutMs = 5_000): Promise<void> {
  const url = new URL(baseUrl);
  if (proxyFor(url, currentNetwork().proxy)) return;
  return tcpReachable(url.hostname.replace(/^\[|\]$/g, ''), portOf(url), timeoutMs);
}

/** One cheap request per API. */
export const PREFLIGHT_PATHS = [
  `/academic/v1.0/evaluate?expr=${encodeURIComponent('Y>1900')}&count=1`,
  '/answersearch/v7.0/search?q=kgate&mkt=en-US&count=1',
  `/urlpreview/v7.0/search?q=${encodeURIComponent('https://www.example.com/')}`,
  `/eventknowledge/v1.0/hotevents?date=${new Date().toISOString().slice(0, 10)}&$top=1`,
];

/** What the preflight requests found that no run could get past. */
export interface PreflightProblem {
  /** `route`: the proxy or TLS stopped the requests; `front`: something in front of the deployment refused them all; `key`: every API refused the key. */
  kind: 'route' | 'front' | 'key';
  /** One line, secrets masked. */
  reason: string;
}

/** A body as a person would name it: an HTML page's title, else its first words. */
function nameOf(body: Buffer): string {
  const text = body.toString('utf8');
  const title = /<title>\s*([^<]{1,120}?)\s*<\/title>/i.exec(text)?.[1];
  const words = (title ?? text).replace(/\s+/g, ' ').trim().slice(0, 80);
  return words === '' ? 'an empty body' : JSON.stringify(words);
}

function isJson(contentType: string | undefined, body: Buffer): boolean {
  if (!/^application\/([a-z0-9.+-]+\+)?json\b/i.test(contentType ?? '')) return false;
  try {
    JSON.parse(body.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether one answer alone rules out every problem the preflight names: an answer came back, so
 * the route holds; it is JSON or not a refusal, so nothing in front refuses every request; and it
 * is not a 401 to the key, so not every API refuses the key.
 */
function rulesOutProblems(response: RawResponse, key: string | undefined): boolean {
  const notRefusedByFront =
    response.status < 400 ||
    response.status === 401 ||
    response.status === 429 ||
    isJson(response.headers['content-type'], response.body);
  return notRefusedByFront && !(key && response.status === 401);
}

/**
 * Asks each API one cheap question (with the key when there is one) and says what would make a
 * whole run pointless: a proxy that cannot be reached or refuses (unreachable, CONNECT refused,
 * 407), a TLS connection that fails (untrusted, expired or misnamed certificate, a client
 * certificate required), every API answering the same error that is not the interface's JSON (a
 * front server refusing: a client certificate it wants, a path it does not route, a gateway whose
 * upstream is down), or every API answering 401 to the key. Anything else (answers, silence within
 * 2 s) is left to the run to judge: undefined. It ends as soon as one answer rules every problem
 * out, and stops the questions still open: one slow API does not hold back the run, which judges
 * its slowness itself.
 */
export async function preflight(
  baseUrl: string,
  key: string | undefined,
  pace?: RequestPace,
): Promise<PreflightProblem | undefined> {
  const stop = new AbortController();
  let ruledOut: () => void = () => {};
  const decided = new Promise<undefined>((resolve) => {
    ruledOut = () => resolve(undefined);
  });
  // Under a request budget the questions go one at a time: the first answer usually settles it, and
  // the questions it makes needless are never sent.
  let turn: Promise<void> = Promise.resolve();
  const asked = Promise.all(
    PREFLIGHT_PATHS.map(async (path): Promise<{ response?: RawResponse; error?: TransportError }> => {
      const paced = path.split('?')[0]!;
      let done = () => {};
      if (pace?.counted) {
        const before = turn;
        turn = new Promise<void>((resolve) => {
          done = resolve;
        });
        await before;
      }
      try {
        return await ask(path, paced);
      } finally {
        done();
      }
    }),
  );
  async function ask(path: string, paced: string): Promise<{ response?: RawResponse; error?: TransportError }> {
    // A question stopped while it waits for its slot claims none: the run's requests get them.
    if (stop.signal.aborted) return {};
    await pace?.wait(paced, stop.signal);
    if (stop.signal.aborted) return {};
    try {
      const response = await sendHttp({
        method: 'GET',
        url: `${baseUrl}${path}`,
        headers: key ? { 'Ocp-Apim-Subscription-Key': key } : {},
        // Short: a target that does not answer here is judged (quickly) by the run itself.
        timeoutMs: 2_000,
        signal: stop.signal,
        onSent: pace && (() => pace.sent(paced)),
        beforeRetry: pace && ((signal) => pace.wait(paced, signal)),
        maxBytes: 1024 * 1024,
      });
      if (rulesOutProblems(response, key)) {
        ruledOut();
        // The questions still waiting for their turn are not asked.
        stop.abort(new Error('the preflight had its answer'));
      }
      return { response };
    } catch (error) {
      if (error instanceof TransportError) return { error };
      throw error;
    }
  }
  try {
    return await Promise.race([decided, asked.then((answers) => problemOf(answers, key))]);
  } finally {
    stop.abort(new Error('the preflight had its answer'));
    // The questions stopped end on their own; nothing waits for them.
    asked.catch(() => {});
  }
}

/** The problem every answer of the preflight shows together, if any. */
function problemOf(
  answers: { response?: RawResponse; error?: TransportError }[],
  key: string | undefined,
): PreflightProblem | undefined {
  const route = answers.find((answer) => answer.error?.route);
  if (route) return { kind: 'route', reason: route.error!.message };
  const responses = answers.flatMap((answer) => (answer.response ? [answer.response] : []));
  if (responses.length < answers.length) return undefined;
  const first = responses[0]!;
  const refusedByFront =
    first.status >= 400 &&
    first.status !== 401 &&
    first.status !== 429 &&
    responses.every(
      (response) => response.status === first.status && !isJson(response.headers['content-type'], response.body),
    );
  if (refusedByFront) {
    const type = first.headers['content-type']?.split(';')[0]?.trim() || 'no content type';
    return {
      kind: 'front',
      reason: `every API answered ${first.status} ${type} (${nameOf(first.body)}), not the interface's JSON: a server in front of the deployment refuses the requests (a client certificate it requires? --client-cert, --client-key; the base URL's path?)`,
    };
  }
  if (key && responses.every((response) => response.status === 401))
    return { kind: 'key', reason: `every API answered 401 to the key (${PREFLIGHT_PATHS.length} requests)` };
  return undefined;
}
