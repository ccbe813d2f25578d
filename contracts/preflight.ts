// What every command that judges a deployment asks before it starts: can the target be reached
// along the run's route (directly, or through the proxy), does TLS hold, does anything answer as
// the interface, is the key accepted. A problem here is one line and exit 2, not a run of failures.
import { connect } from 'node:net';
import { currentNetwork, type RawResponse, sendHttp, TransportError } from '../http/client.ts';
import { portOf, proxyFor } from '../http/network.ts';
import type { RequestPace } from '../http/pacing.ts';
import { quotaSignal, replenishedWords } from '../http/quota.ts';

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

/** One cheap question per API: its path (query included) and the top-level fields its 200 answer carries. */
export const PREFLIGHT_QUESTIONS: readonly { path: string; fields: readonly string[] }[] = [
  { path: `/academic/v1.0/evaluate?expr=${encodeURIComponent('Y>1900')}&count=1`, fields: ['expr', 'entities'] },
  {
    path: '/answersearch/v7.0/search?q=kgate&mkt=en-US&count=1',
    fields: ['_type', 'queryContext', 'webPages', 'entities', 'facts', 'rankingResponse'],
  },
  {
    path: `/urlpreview/v7.0/search?q=${encodeURIComponent('https://www.example.com/')}`,
    fields: ['_type', 'name', 'url', 'description', 'primaryImageOfPage'],
  },
  {
    path: `/eventknowledge/v1.0/hotevents?date=${new Date().toISOString().slice(0, 10)}&$top=1`,
    fields: ['value'],
  },
];

/** The paths of the preflight's questions, query included. */
export const PREFLIGHT_PATHS: readonly string[] = PREFLIGHT_QUESTIONS.map((question) => question.path);

/** What the preflight requests found that no run could get past. */
export interface PreflightProblem {
  /**
   * `route`: the proxy or TLS stopped the requests; `front`: something in front of the deployment
   * refused them all; `routing`: nothing at the base URL answers as the interface (a path prefix
   * that routes nothing, a catch-all page); `key`: every API refused the key; `quota`: the key's
   * call volume quota is used up.
   */
  kind: 'route' | 'front' | 'routing' | 'key' | 'quota';
  /** One line, secrets masked. */
  reason: string;
}

/** A body as a person would name it: an HTML page's title, a JSON body's message, else its first words. */
function nameOf(body: Buffer): string {
  const text = body.toString('utf8');
  const json = parsed(body) as { message?: unknown; error?: { message?: unknown } } | undefined;
  const message = typeof json === 'object' && json !== null ? (json.message ?? json.error?.message) : undefined;
  const title =
    /<title>\s*([^<]{1,120}?)\s*<\/title>/i.exec(text)?.[1] ?? (typeof message === 'string' ? message : undefined);
  const words = (title ?? text).replace(/\s+/g, ' ').trim().slice(0, 80);
  return words === '' ? 'an empty body' : JSON.stringify(words);
}

function isJson(contentType: string | undefined, body: Buffer): boolean {
  if (!/^application\/([a-z0-9.+-]+\+)?json\b/i.test(contentType ?? '')) return false;
  return parsed(body) !== undefined;
}

/** The body read as JSON, whatever its content type says; undefined when it is not JSON. */
function parsed(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Whether an answer comes from something that serves the interface at this path: a JSON error of the
 * key, the quota or the pace (401, 403, 429), any other JSON error but a 404 (the deployment's,
 * judged by the run), or a 2xx whose JSON carries a field of the operation's answer (whatever its
 * content type and the rest of its shape, which the run judges). Not routed: a 404 (event
 * knowledge's own 404 reads as a gateway's for a path it does not know, so one API's 404 decides
 * nothing while another is routed), a page, a catch-all's answer that is none of these.
 */
function isRouted(question: (typeof PREFLIGHT_QUESTIONS)[number], response: RawResponse): boolean {
  const { status } = response;
  if (status === 429 || status === 503) return true;
  const json = parsed(response.body);
  if (json === undefined) return false;
  if (status === 404) return false;
  if (status >= 400) return true;
  if (status < 200 || status >= 300 || typeof json !== 'object' || json === null) return false;
  return question.fields.some((field) => field in json);
}

/** One question of the preflight and what came of it. */
interface Answer {
  question: (typeof PREFLIGHT_QUESTIONS)[number];
  response?: RawResponse;
  error?: TransportError;
}

/**
 * Whether one answer alone rules out every problem the preflight names: an answer came back, so
 * the route holds; it comes from the interface at this path, so the base URL routes it and nothing
 * in front refuses every request; and it is neither a 401 to the key nor the quota's 403.
 */
function rulesOutProblems(
  question: (typeof PREFLIGHT_QUESTIONS)[number],
  response: RawResponse,
  key: string | undefined,
): boolean {
  return isRouted(question, response) && !(key && response.status === 401) && quotaSignal(response) === undefined;
}

/**
 * Asks each API one cheap question (with the key when there is one) and says what would make a
 * whole run pointless: a proxy that cannot be reached or refuses (unreachable, CONNECT refused,
 * 407), a TLS connection that fails (untrusted, expired or misnamed certificate, a client
 * certificate required), every API answering the same error that is not the interface's JSON (a
 * front server refusing: a client certificate it wants, a gateway whose upstream is down), no API
 * answering from a path of the interface (a base URL whose prefix routes nothing: 404s, a
 * catch-all page), every API answering the quota's 403, or every API answering 401 to the key.
 * Anything else (answers, silence within 2 s) is left to the run to judge: undefined. It ends as soon as one answer rules every problem
 * out: the questions still waiting for their slot are not sent, and those sent finish unwaited for,
 * so one slow API does not hold back the run, which judges its slowness itself.
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
    PREFLIGHT_QUESTIONS.map(async (question): Promise<Answer> => {
      let done = () => {};
      if (pace?.counted) {
        const before = turn;
        turn = new Promise<void>((resolve) => {
          done = resolve;
        });
        await before;
      }
      try {
        return await ask(question);
      } finally {
        done();
      }
    }),
  );
  async function ask(question: Answer['question']): Promise<Answer> {
    const { path } = question;
    const paced = path.split('?')[0]!;
    // A question stopped while it waits for its turn or its slot claims none: the run's requests get them.
    if (stop.signal.aborted) return { question };
    await pace?.wait(paced, stop.signal);
    if (stop.signal.aborted) return { question };
    try {
      const response = await sendHttp({
        method: 'GET',
        url: `${baseUrl}${path}`,
        headers: key ? { 'Ocp-Apim-Subscription-Key': key } : {},
        // Short: a target that does not answer here is judged (quickly) by the run itself.
        timeoutMs: 2_000,
        // A question already sent is let finish within its deadline, unwaited for: stopped, it would be
        // a request a front logs as dropped (nginx's 499) and a gateway counts all the same.
        onSent: pace && (() => pace.sent(paced)),
        beforeRetry: pace && ((signal) => pace.wait(paced, signal)),
        maxBytes: 1024 * 1024,
      });
      if (rulesOutProblems(question, response, key)) {
        ruledOut();
        // The questions still waiting for their turn are not asked.
        stop.abort(new Error('the preflight had its answer'));
      }
      return { question, response };
    } catch (error) {
      if (error instanceof TransportError) return { question, error };
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
function problemOf(answers: Answer[], key: string | undefined): PreflightProblem | undefined {
  const route = answers.find((answer) => answer.error?.route);
  if (route) return { kind: 'route', reason: route.error!.message };
  const responses = answers.flatMap((answer) => (answer.response ? [answer.response] : []));
  if (responses.length < answers.length) return undefined;
  const first = responses[0]!;
  const type = (response: RawResponse) => response.headers['content-type']?.split(';')[0]?.trim() || 'no content type';
  const refusedByFront =
    first.status >= 400 &&
    first.status !== 401 &&
    first.status !== 404 &&
    first.status !== 429 &&
    responses.every(
      (response) => response.status === first.status && !isJson(response.headers['content-type'], response.body),
    );
  if (refusedByFront) {
    return {
      kind: 'front',
      reason: `every API answered ${first.status} ${type(first)} (${nameOf(first.body)}), not the interface's JSON: a server in front of the deployment refuses the requests (a client certificate it requires? --client-cert, --client-key; the base URL's path?)`,
    };
  }
  if (answers.every((answer) => !isRouted(answer.question, answer.response!))) {
    const said = (answer: Answer) =>
      `${answer.response!.status} ${type(answer.response!)} (${nameOf(answer.response!.body)})`;
    const alike = answers.every((answer) => said(answer) === said(answers[0]!));
    const seen = alike
      ? `every API answered ${said(answers[0]!)}`
      : answers.map((answer) => `GET ${answer.question.path.split('?')[0]} answered ${said(answer)}`).join('; ');
    return {
      kind: 'routing',
      reason: `no path of the interface is routed there (${seen}): the base URL must be the prefix its paths hang from, <base URL>${PREFLIGHT_QUESTIONS[0]!.path.split('?')[0]}`,
    };
  }
  const quota = quotaSignal(first);
  if (quota && responses.every((response) => quotaSignal(response) !== undefined)) {
    return {
      kind: 'quota',
      reason: `every API answered 403: the key's call volume quota is used up (${replenishedWords(quota)})`,
    };
  }
  if (key && responses.every((response) => response.status === 401))
    return { kind: 'key', reason: `every API answered 401 to the key (${PREFLIGHT_QUESTIONS.length} requests)` };
  return undefined;
}
