// Every fault of the coverage model's classes (classes.ts) is proven over real HTTP: a request of its
// class shows the deviation under /faults/<name>, the same request with a plain value does not, and
// the clean server answers both as it should. Requests go out as written (header names in their
// case, query strings and bodies as encoded here), through node:http.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { type ReferenceServer, startReferenceServer } from '../index.ts';
import { classFaults } from './classes.ts';

/** One request as written: method, path and query string, header lines, body. */
interface Raw {
  method?: 'GET' | 'POST';
  /** Path and query string, encoded as they go. */
  target: string;
  headers?: [string, string][];
  body?: string;
}

interface Answer {
  status: number;
  type: string;
  text: string;
}

let server: ReferenceServer;
/** An event the reference server has (its hottest of a date with events). */
let eventId = '';

before(async () => {
  server = await startReferenceServer({ quiet: true, rateLimit: 1e9 });
  const hottest = await send(server.url, hot({ $top: '1' }));
  eventId = (JSON.parse(hottest.text) as { value: { eventId: string }[] }).value[0]!.eventId;
});
after(async () => {
  await server.close();
});

/** Sends a request as written, with the full key in the field name given (as the interface writes it by default). */
function send(base: string, raw: Raw, keyName = 'Ocp-Apim-Subscription-Key'): Promise<Answer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    // Header lines as written: an array keeps their names' case (and Node then adds no Host of its own).
    const headers: [string, string][] = [['Host', url.host], [keyName, server.keys.full], ...(raw.headers ?? [])];
    if (raw.body !== undefined) headers.push(['Content-Length', String(Buffer.byteLength(raw.body))]);
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: raw.method ?? 'GET',
        path: `${url.pathname.replace(/\/$/, '')}${raw.target}`,
        headers: headers.flat(),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            type: String(res.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(raw.body);
  });
}

const q = (params: Record<string, string>) => new URLSearchParams(params).toString().replaceAll('+', '%20');
const get = (path: string, params: Record<string, string>, headers?: [string, string][]): Raw => ({
  target: `${path}?${q(params)}`,
  ...(headers ? { headers } : {}),
});
const post = (path: string, body: string, type: string | null = 'application/x-www-form-urlencoded'): Raw => ({
  method: 'POST',
  target: path,
  body,
  headers: type === null ? [] : [['Content-Type', type]],
});

const INTERPRET = '/academic/v1.0/interpret';
const EVALUATE = '/academic/v1.0/evaluate';
const HISTOGRAM = '/academic/v1.0/calchistogram';
const SIMILARITY = '/academic/v1.0/similarity';
const ANSWER = '/answersearch/v7.0/search';
const PREVIEW = '/urlpreview/v7.0/search';
const HOT = '/eventknowledge/v1.0/hotevents';
const RELATED = '/eventknowledge/v1.0/relatedevents';

const answer = (params: Record<string, string>, headers?: [string, string][]) =>
  get(ANSWER, { mkt: 'en-US', ...params }, headers);
const hot = (params: Record<string, string>, headers?: [string, string][]) =>
  get(HOT, { date: '2026-11-01', ...params }, headers);
const form = (params: Record<string, string>) => new URLSearchParams(params).toString();
/** The documents of the event found before the tests (a getter: the id is known only then). */
const documents = (params: Record<string, string>): Raw => ({
  get target() {
    return `/eventknowledge/v1.0/events/${eventId}/documents?${q(params)}`;
  },
});

/** What a fault's answer to its class shows: a 500, a refusal (400, 404, 406), a 401, HTML, or a 2xx where the clean server refuses. */
type Shows = '500' | 'refused' | '401' | 'html' | 'accepted' | ((faulty: Answer, clean: Answer) => boolean);

/** One fault: a request of its class, a plain twin, and what the fault's answer to the first shows. */
interface ClassCase {
  fault: string;
  trigger: Raw;
  plain: Raw;
  shows: Shows;
  /** The key's field name of the trigger, where the class is the name's case. */
  keyName?: string;
}

const CASES: ClassCase[] = [
  {
    fault: 'answersearch-other-script-500',
    trigger: answer({ q: 'наука данных' }),
    plain: answer({ q: 'data science' }),
    shows: '500',
  },
  {
    fault: 'similarity-symbol-500',
    trigger: get(SIMILARITY, { s1: '∑ ≤ ∞ graphs', s2: 'graphs' }),
    plain: get(SIMILARITY, { s1: 'sum graphs', s2: 'graphs' }),
    shows: '500',
  },
  {
    fault: 'interpret-quotes-500',
    trigger: get(INTERPRET, { query: '“graph” search' }),
    plain: get(INTERPRET, { query: 'graph search' }),
    shows: '500',
  },
  {
    fault: 'answersearch-invisible-rejected',
    trigger: answer({ q: 'knowledge\u200bgraph' }),
    plain: answer({ q: 'knowledge graph' }),
    shows: 'refused',
  },
  {
    fault: 'similarity-astral-500',
    trigger: post(SIMILARITY, form({ s1: '𝔤𝔯𝔞𝔭𝔥', s2: 'graph' })),
    plain: post(SIMILARITY, form({ s1: 'graph', s2: 'graph' })),
    shows: '500',
  },
  {
    fault: 'interpret-full-width-500',
    trigger: post(INTERPRET, form({ query: 'ｇｒａｐｈ' })),
    plain: post(INTERPRET, form({ query: 'graph' })),
    shows: '500',
  },
  {
    fault: 'answersearch-plus-read-as-space',
    trigger: answer({ q: 'c++' }),
    plain: answer({ q: 'c' }),
    shows: (faulty, clean) =>
      faulty.status === 200 && clean.status === 200 && faulty.text.includes('"originalQuery":"c  "'),
  },
  {
    fault: 'similarity-form-delimiters-500',
    trigger: get(SIMILARITY, { s1: 'r&d x=y', s2: 'rd' }),
    plain: get(SIMILARITY, { s1: 'rd xy', s2: 'rd' }),
    shows: '500',
  },
  {
    fault: 'interpret-hash-500',
    trigger: get(INTERPRET, { query: 'c# language' }),
    plain: get(INTERPRET, { query: 'c language' }),
    shows: '500',
  },
  {
    fault: 'answersearch-semicolon-500',
    trigger: answer({ q: 'key; value' }),
    plain: answer({ q: 'key value' }),
    shows: '500',
  },
  {
    fault: 'interpret-tilde-asterisk-500',
    trigger: post(INTERPRET, form({ query: '~user *ptr' })),
    plain: post(INTERPRET, form({ query: 'user ptr' })),
    shows: '500',
  },
  {
    fault: 'interpret-only-digits-500',
    trigger: get(INTERPRET, { query: '2021' }),
    plain: get(INTERPRET, { query: 'graph 2021' }),
    shows: '500',
  },
  {
    fault: 'answersearch-only-punctuation-rejected',
    trigger: answer({ q: '?!' }),
    plain: answer({ q: 'what' }),
    shows: 'refused',
  },
  {
    fault: 'evaluate-other-script-value-500',
    trigger: get(EVALUATE, { expr: "Ti='наука'" }),
    plain: get(EVALUATE, { expr: "Ti='nauka'" }),
    shows: '500',
  },
  {
    fault: 'calchistogram-symbol-value-500',
    trigger: get(HISTOGRAM, { expr: "Ti='∑ graphs'" }),
    plain: get(HISTOGRAM, { expr: "Ti='graphs'" }),
    shows: '500',
  },
  {
    fault: 'evaluate-invisible-value-rejected',
    trigger: post(EVALUATE, form({ expr: "Ti='a\u200bb'" })),
    plain: post(EVALUATE, form({ expr: "Ti='ab'" })),
    shows: 'refused',
  },
  {
    fault: 'calchistogram-astral-value-500',
    trigger: post(HISTOGRAM, form({ expr: "Ti='𝔤𝔯𝔞𝔭𝔥'" })),
    plain: post(HISTOGRAM, form({ expr: "Ti='graph'" })),
    shows: '500',
  },
  {
    fault: 'evaluate-full-width-value-500',
    trigger: get(EVALUATE, { expr: "Ti='ｇｒａｐｈ'" }),
    plain: get(EVALUATE, { expr: "Ti='graph'" }),
    shows: '500',
  },
  { fault: 'hotevents-leading-zeros-500', trigger: hot({ $top: '003' }), plain: hot({ $top: '3' }), shows: '500' },
  {
    fault: 'answersearch-leading-zeros-not-found',
    trigger: answer({ q: 'graph', count: '003' }),
    plain: answer({ q: 'graph', count: '3' }),
    shows: (faulty, clean) => faulty.status === 404 && clean.status === 200,
  },
  {
    fault: 'answersearch-plus-sign-count-500',
    trigger: answer({ q: 'graph', count: '+3' }),
    plain: answer({ q: 'graph', count: '3' }),
    shows: '500',
  },
  {
    fault: 'evaluate-exponent-count-misread',
    trigger: get(EVALUATE, { expr: 'Y>=1990', count: '3e0' }),
    plain: get(EVALUATE, { expr: 'Y>=1990', count: '3' }),
    shows: (faulty, clean) =>
      (JSON.parse(faulty.text).entities?.length ?? 0) > 3 && JSON.parse(clean.text).entities?.length === 3,
  },
  {
    fault: 'relatedevents-point-zero-500',
    trigger: get(RELATED, { wikipediaid: 'Barack_Obama', $top: '3.0' }),
    plain: get(RELATED, { wikipediaid: 'Barack_Obama', $top: '3' }),
    shows: '500',
  },
  {
    fault: 'eventdocuments-white-space-number-500',
    trigger: documents({ $top: ' 3' }),
    plain: documents({ $top: '3' }),
    shows: (faulty, clean) => faulty.status === 500 && clean.status !== 500,
  },
  {
    fault: 'interpret-negative-zero-500',
    trigger: get(INTERPRET, { query: 'graph', offset: '-0' }),
    plain: get(INTERPRET, { query: 'graph', offset: '0' }),
    shows: '500',
  },
  {
    fault: 'calchistogram-other-digits-500',
    trigger: get(HISTOGRAM, { expr: 'Y>=1990', count: '３' }),
    plain: get(HISTOGRAM, { expr: 'Y>=1990', count: '3' }),
    shows: '500',
  },
  {
    fault: 'answersearch-offset-beyond-int32-500',
    trigger: answer({ q: 'graph', offset: '2147483648' }),
    plain: answer({ q: 'graph', offset: '2147483647' }),
    shows: '500',
  },
  {
    fault: 'hotevents-skip-beyond-safe-integer-500',
    trigger: hot({ $skip: '9007199254740993' }),
    plain: hot({ $skip: '9007199254740991' }),
    shows: '500',
  },
  {
    fault: 'evaluate-spaced-attributes-500',
    trigger: get(EVALUATE, { expr: 'Y=2010', attributes: 'Ti, Y' }),
    plain: get(EVALUATE, { expr: 'Y=2010', attributes: 'Ti,Y' }),
    shows: '500',
  },
  {
    fault: 'calchistogram-trailing-comma-attributes-500',
    trigger: get(HISTOGRAM, { expr: 'Y>=1990', attributes: 'Y,F.FN,' }),
    plain: get(HISTOGRAM, { expr: 'Y>=1990', attributes: 'Y,F.FN' }),
    shows: '500',
  },
  {
    fault: 'evaluate-orderby-title-500',
    trigger: get(EVALUATE, { expr: 'Y>=1990', orderby: 'Ti:asc' }),
    plain: get(EVALUATE, { expr: 'Y>=1990', orderby: 'Y:asc' }),
    shows: '500',
  },
  {
    fault: 'evaluate-orderby-id-500',
    trigger: post(EVALUATE, form({ expr: 'Y>=1990', orderby: 'Id' })),
    plain: post(EVALUATE, form({ expr: 'Y>=1990', orderby: 'Y' })),
    shows: '500',
  },
  {
    fault: 'calchistogram-model-case-500',
    trigger: post(HISTOGRAM, form({ expr: 'Y>=1990', model: 'LATEST' })),
    plain: post(HISTOGRAM, form({ expr: 'Y>=1990', model: 'latest' })),
    shows: '500',
  },
  {
    fault: 'answersearch-market-script-500',
    trigger: answer({ q: 'graph', mkt: 'zh-Hans-CN' }),
    plain: answer({ q: 'graph', mkt: 'zh-CN' }),
    shows: '500',
  },
  {
    fault: 'answersearch-market-region-500',
    trigger: answer({ q: 'graph', mkt: 'es-419' }),
    plain: answer({ q: 'graph', mkt: 'es-ES' }),
    shows: '500',
  },
  {
    fault: 'answersearch-posix-locale-accepted',
    trigger: answer({ q: 'graph', mkt: 'en_US.UTF-8' }),
    plain: answer({ q: 'graph' }),
    shows: 'accepted',
  },
  {
    fault: 'answersearch-language-only-accepted',
    trigger: answer({ q: 'graph', mkt: 'en' }),
    plain: answer({ q: 'graph' }),
    shows: 'accepted',
  },
  {
    fault: 'urlpreview-ip-host-500',
    trigger: get(PREVIEW, { q: 'http://127.0.0.1/page' }),
    plain: get(PREVIEW, { q: 'https://www.example.com/' }),
    shows: '500',
  },
  {
    fault: 'urlpreview-userinfo-500',
    trigger: get(PREVIEW, { q: 'https://user:pw@www.example.com/' }),
    plain: get(PREVIEW, { q: 'https://www.example.com/' }),
    shows: '500',
  },
  {
    fault: 'urlpreview-dot-segments-500',
    trigger: get(PREVIEW, { q: 'https://www.example.com/a/../' }),
    plain: get(PREVIEW, { q: 'https://www.example.com/' }),
    shows: '500',
  },
  {
    fault: 'urlpreview-upper-case-url-500',
    trigger: get(PREVIEW, { q: 'HTTPS://WWW.EXAMPLE.COM/' }),
    plain: get(PREVIEW, { q: 'https://www.example.com/' }),
    shows: '500',
  },
  {
    fault: 'urlpreview-backslash-500',
    trigger: get(PREVIEW, { q: 'https://www.example.com\\a' }),
    plain: get(PREVIEW, { q: 'https://www.example.com/' }),
    shows: '500',
  },
  {
    fault: 'hotevents-epoch-500',
    trigger: hot({ date: '1970-01-01' }),
    plain: hot({ date: '1971-01-01' }),
    shows: '500',
  },
  {
    fault: 'hotevents-before-epoch-500',
    trigger: hot({ date: '1969-12-31' }),
    plain: hot({ date: '1970-01-02' }),
    shows: '500',
  },
  {
    fault: 'hotevents-y2038-500',
    trigger: hot({ date: '2038-01-19' }),
    plain: hot({ date: '2038-01-18' }),
    shows: '500',
  },
  {
    fault: 'hotevents-early-year-500',
    trigger: hot({ date: '0999-12-31' }),
    plain: hot({ date: '1999-12-31' }),
    shows: '500',
  },
  {
    fault: 'hotevents-year-9999-500',
    trigger: hot({ date: '9999-12-31' }),
    plain: hot({ date: '9999-12-30' }),
    shows: '500',
  },
  {
    fault: 'hotevents-year-zero-500',
    trigger: hot({ date: '0000-01-01' }),
    plain: hot({ date: '2000-01-01' }),
    shows: '500',
  },
  { fault: 'hotevents-padded-date-500', trigger: hot({ date: ' 2026-11-01 ' }), plain: hot({}), shows: '500' },
  { fault: 'hotevents-week-date-accepted', trigger: hot({ date: '2021-W11-1' }), plain: hot({}), shows: 'accepted' },
  { fault: 'hotevents-ordinal-date-accepted', trigger: hot({ date: '2021-074' }), plain: hot({}), shows: 'accepted' },
  {
    fault: 'hotevents-expanded-year-accepted',
    trigger: hot({ date: '+002026-11-01' }),
    plain: hot({}),
    shows: 'accepted',
  },
  {
    fault: 'relatedevents-spaced-id-500',
    trigger: get(RELATED, { wikipediaid: 'Barack Obama' }),
    plain: get(RELATED, { wikipediaid: 'Barack_Obama' }),
    shows: '500',
  },
  {
    fault: 'eventdocuments-escaped-id-not-found',
    trigger: {
      get target() {
        return `/eventknowledge/v1.0/events/${[...eventId].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')}/documents`;
      },
    },
    plain: documents({}),
    shows: (faulty, clean) => faulty.status === 404 && clean.status === 200,
  },
  {
    fault: 'eventdocuments-upper-case-id-500',
    trigger: {
      get target() {
        return `/eventknowledge/v1.0/events/${eventId.toUpperCase()}/documents`;
      },
    },
    plain: documents({}),
    shows: '500',
  },
  {
    fault: 'eventdocuments-segment-delimiters-500',
    trigger: { target: '/eventknowledge/v1.0/events/a%3Bb/documents' },
    plain: { target: '/eventknowledge/v1.0/events/ab/documents' },
    shows: (faulty, clean) => faulty.status === 500 && clean.status === 404,
  },
  {
    fault: 'interpret-empty-pairs-rejected',
    trigger: { target: `${INTERPRET}?&query=graph&&complete=1&` },
    plain: { target: `${INTERPRET}?query=graph&complete=1` },
    shows: 'refused',
  },
  {
    fault: 'answersearch-empty-value-500',
    trigger: answer({ q: 'graph', count: '' }),
    plain: answer({ q: 'graph' }),
    shows: '500',
  },
  {
    fault: 'similarity-escaped-body-500',
    trigger: post(SIMILARITY, '%73%31=%67%72%61%70%68&%73%32=%67%72%61%70%68'),
    plain: post(SIMILARITY, 's1=graph&s2=graph'),
    shows: '500',
  },
  {
    fault: 'evaluate-content-type-charset-rejected',
    trigger: post(EVALUATE, 'expr=Y%3D2010', 'application/x-www-form-urlencoded; charset=UTF-8'),
    plain: post(EVALUATE, 'expr=Y%3D2010'),
    shows: 'refused',
  },
  {
    fault: 'interpret-content-type-case-rejected',
    trigger: post(INTERPRET, 'query=graph', 'Application/X-WWW-Form-URLEncoded'),
    plain: post(INTERPRET, 'query=graph'),
    shows: 'refused',
  },
  {
    fault: 'calchistogram-quoted-charset-500',
    trigger: post(HISTOGRAM, 'expr=Y%3D2010', 'application/x-www-form-urlencoded;charset="utf-8"'),
    plain: post(HISTOGRAM, 'expr=Y%3D2010'),
    shows: '500',
  },
  {
    fault: 'similarity-no-content-type-500',
    trigger: post(SIMILARITY, 's1=graph&s2=graph', null),
    plain: post(SIMILARITY, 's1=graph&s2=graph'),
    shows: '500',
  },
  {
    fault: 'interpret-text-plain-500',
    trigger: post(INTERPRET, 'query=graph', 'text/plain;charset=UTF-8'),
    plain: post(INTERPRET, 'query=graph'),
    shows: '500',
  },
  {
    fault: 'hotevents-lower-case-key-name-401',
    trigger: hot({}),
    plain: hot({}),
    keyName: 'ocp-apim-subscription-key',
    shows: '401',
  },
  {
    fault: 'urlpreview-upper-case-key-name-401',
    trigger: get(PREVIEW, { q: 'https://www.example.com/' }),
    plain: get(PREVIEW, { q: 'https://www.example.com/' }),
    keyName: 'OCP-APIM-SUBSCRIPTION-KEY',
    shows: '401',
  },
  {
    fault: 'relatedevents-accept-any-406',
    trigger: get(RELATED, { wikipediaid: 'Barack_Obama' }, [['Accept', '*/*']]),
    plain: get(RELATED, { wikipediaid: 'Barack_Obama' }),
    shows: 'refused',
  },
  {
    fault: 'hotevents-accept-list-500',
    trigger: hot({}, [['Accept', 'application/json, text/plain, */*']]),
    plain: hot({}, [['Accept', 'application/json']]),
    shows: '500',
  },
  {
    fault: 'answersearch-browser-accept-html',
    trigger: answer({ q: 'graph' }, [['Accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8']]),
    plain: answer({ q: 'graph' }),
    shows: 'html',
  },
];

/** Whether a fault's answer to its class shows the deviation the case names. */
function showsDeviation(shows: Shows, faulty: Answer, clean: Answer): boolean {
  if (typeof shows === 'function') return shows(faulty, clean);
  const ok = (answer: Answer) => answer.status >= 200 && answer.status < 300;
  switch (shows) {
    case '500':
      return faulty.status === 500 && clean.status !== 500;
    case 'refused':
      return [400, 404, 406].includes(faulty.status) && ok(clean);
    case '401':
      return faulty.status === 401 && ok(clean);
    case 'html':
      return ok(faulty) && faulty.type.startsWith('text/html') && clean.type.startsWith('application/json');
    case 'accepted':
      return ok(faulty) && clean.status >= 400 && clean.status < 500;
  }
}

describe('faults of the coverage model classes', () => {
  test('every class fault has a case', () => {
    const cased = new Set(CASES.map((c) => c.fault));
    assert.deepEqual(
      classFaults()
        .map((fault) => fault.name)
        .filter((name) => !cased.has(name)),
      [],
    );
  });

  for (const c of CASES) {
    test(c.fault, async () => {
      const faulty = await send(`${server.url}/faults/${c.fault}`, c.trigger, c.keyName);
      const clean = await send(server.url, c.trigger, c.keyName);
      assert.ok(
        showsDeviation(c.shows, faulty, clean),
        `${c.fault}: faulty ${faulty.status} ${faulty.text.slice(0, 160)}; clean ${clean.status} ${clean.text.slice(0, 160)}`,
      );
      // The plain twin is answered alike by both: the fault deviates on its class only.
      const [plainFaulty, plainClean] = await Promise.all([
        send(`${server.url}/faults/${c.fault}`, c.plain),
        send(server.url, c.plain),
      ]);
      assert.equal(plainFaulty.status, plainClean.status, `${c.fault}: the plain request is answered alike`);
      assert.equal(plainFaulty.text, plainClean.text, `${c.fault}: the plain request is answered alike`);
    });
  }
});
