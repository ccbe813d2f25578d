// The limits of the servers in front of a deployment. A reverse proxy, a gateway, a forward proxy
// or the deployment's own HTTP server refuses a request beyond what it accepts (a request line or
// headers over its buffers, a body over its size limit) with an answer of its own: nginx's
// `414 Request-URI Too Large` page, Node's `431` with an empty body, squid's `400` page, a `413`.
// Such a request goes beyond what the interface promises to serve, so that answer is the
// infrastructure's, not the interface's: it is named once per run, with the limit it showed,
// never judged as a failure, and never makes kgate give up on an operation.
//
// The rule for "beyond what the interface promises": a request whose request line and headers
// exceed LONG_HEAD_BYTES (the smallest limit common front servers use: some gateways cut at 2 KB,
// nginx and Apache at 8 KB, Node and HAProxy at 16 KB; the interface sends long inputs through its
// POST variants), or whose body exceeds LONG_BODY_BYTES (the documented 1 MB, read as the smaller
// 1,000,000 bytes). Its 414 or 431, whatever the body, is the front server's; its 413 or 400 is the
// front server's when it is not JSON (an interface answering in JSON is judged: its own 413 where
// it documents 400 fails). A shorter request getting such an answer is judged as any answer is,
// and so is a 5xx or a 2xx to a long one: only the refusals a front server gives pass as its own.
//
// Front servers also refuse characters the interface reads as any other text: lighttpd's stock
// `url-ctrls-reject` answers its own 400 page to a URL holding a control character, even
// percent-encoded. A request whose URL holds such a class (CHARACTER_CLASSES) and gets a 4xx that is
// not the interface's JSON and carries a front server's marks (a page or plain text, a Server or Via
// header) is refused by the front server for that class: named with the server, never judged, and
// not sent again (the caller keeps the classes a target refuses).

/** Requests whose request line and headers are longer than this may meet a front server's limit. */
export const LONG_HEAD_BYTES = 2_048;
/** Bodies longer than this exceed the documented 1 MB limit, read the smaller way. */
export const LONG_BODY_BYTES = 1_000_000;
/** The statuses a front server refuses a request it will not pass on with. */
export const FRONT_LIMIT_STATUSES: readonly number[] = [400, 413, 414, 431];

/** Characters a front server may refuse in a URL that the interface reads as text like any other. */
export const CHARACTER_CLASSES: readonly { name: string; test: (decoded: string, raw: string) => boolean }[] = [
  // C0 controls and DEL, as sent or percent-encoded.
  { name: 'control characters', test: (decoded) => /[\u0000-\u001f\u007f]/.test(decoded) },
  { name: 'a malformed percent-encoding', test: (_decoded, raw) => /%(?![0-9a-fA-F]{2})/.test(raw) },
  { name: 'bytes outside ASCII, not percent-encoded', test: (_decoded, raw) => /[^\u0000-\u007f]/.test(raw) },
];

/** The character classes of a request-target (path and query) a front server may refuse. */
export function characterClassesOf(target: string): string[] {
  const raw = target.replace(/^[a-z]+:\/\/[^/]*/i, '');
  // Decoded as a front server decodes it: byte by byte, a malformed escape left as it is.
  const decoded = raw.replace(/%([0-9a-fA-F]{2})/g, (_match, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
  return CHARACTER_CLASSES.filter((group) => group.test(decoded, raw)).map((group) => group.name);
}

/** A request a server in front of the interface refused because of its size, or of characters in its URL. */
export interface FrontRefusal {
  /** What it refused: the request line and headers, or the body, for their size; or characters of the URL. */
  part: 'head' | 'body' | 'characters';
  /** For `characters`: the classes the URL held (`control characters`). */
  characters?: string[];
  /** The front server, as its Server (else Via) header names it, when it did. */
  server?: string;
  method: string;
  /** Its size, in bytes. */
  bytes: number;
  status: number;
  /** The answer's media type, or `no content type`. */
  contentType: string;
}

/** True for a body the interface could have sent: labelled JSON and parsing as JSON. */
function interfaceJson(contentType: string | undefined, body: Buffer): boolean {
  if (!/^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i.test(contentType ?? '')) return false;
  try {
    JSON.parse(body.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

/**
 * The front server's refusal in an answer, or undefined when the answer is to be judged: a 414 or
 * 431 to a long request (the request line and headers are the HTTP server's to judge, whatever it
 * sends), or a 413 or 400 to one that is not JSON (an interface may send those itself: its JSON
 * answer stays the interface's, judged as strictly as ever, so a deployment answering its own 413
 * where the interface documents 400 still fails).
 */
export function frontRefusal(
  method: string,
  sent: { headBytes: number; bodyBytes: number },
  answer: { status: number; headers: Record<string, string>; body: Buffer },
  target?: string,
): FrontRefusal | undefined {
  if (answer.status >= 400 && answer.status < 500 && target !== undefined) {
    const characters = characterClassesOf(target);
    const contentType = answer.headers['content-type'];
    const server = answer.headers.server ?? answer.headers.via;
    const marked = server !== undefined || /^text\/(html|plain)/i.test(contentType ?? '');
    if (characters.length > 0 && marked && !interfaceJson(contentType, answer.body))
      return {
        part: 'characters',
        characters,
        ...(server ? { server } : {}),
        method,
        bytes: sent.headBytes,
        status: answer.status,
        contentType: contentType?.split(';')[0]?.trim().toLowerCase() || 'no content type',
      };
  }
  if (!FRONT_LIMIT_STATUSES.includes(answer.status)) return undefined;
  const longHead = sent.headBytes > LONG_HEAD_BYTES;
  const longBody = sent.bodyBytes > LONG_BODY_BYTES;
  if (!longHead && !longBody) return undefined;
  const contentType = answer.headers['content-type'];
  if ((answer.status === 400 || answer.status === 413) && interfaceJson(contentType, answer.body)) return undefined;
  const part = longBody && (answer.status === 413 || answer.status === 400 || !longHead) ? 'body' : 'head';
  return {
    part,
    method,
    bytes: part === 'body' ? sent.bodyBytes : sent.headBytes,
    status: answer.status,
    contentType: contentType?.split(';')[0]?.trim().toLowerCase() || 'no content type',
  };
}

/** What a run saw of front-server limits: the refusals (the shortest of each kind) and the longest requests that got through. */
export interface FrontLimits {
  /** By `part method status content type`. */
  refused: Record<string, FrontRefusal & { count: number }>;
  /** The longest request line and headers, and body, that reached the interface, among the long ones. */
  passed: { head: number; body: number };
  /** Generated GET inputs sent again through their operation's POST variant after a refusal. */
  resent: number;
}

/** An empty record. */
export function noFrontLimits(): FrontLimits {
  return { refused: {}, passed: { head: 0, body: 0 }, resent: 0 };
}

/** True when the record holds anything worth carrying (a refusal, or a long request that got through). */
export function hasFrontLimits(limits: FrontLimits): boolean {
  return (
    Object.keys(limits.refused).length > 0 || limits.passed.head > 0 || limits.passed.body > 0 || limits.resent > 0
  );
}

/** What a refusal is kept under: its kind, method, answer and, for characters, their classes. */
function refusalKey(refusal: FrontRefusal): string {
  return `${refusal.part} ${refusal.method} ${refusal.status} ${refusal.contentType}${refusal.characters ? ` ${refusal.characters.join(',')}` : ''}`;
}

/** Records a refusal. */
export function recordRefusal(limits: FrontLimits, refusal: FrontRefusal): void {
  const key = refusalKey(refusal);
  const known = limits.refused[key];
  if (!known) limits.refused[key] = { ...refusal, count: 1 };
  else {
    known.count++;
    known.bytes = Math.min(known.bytes, refusal.bytes);
  }
}

/** Records a request that reached the interface, when it was long (the limit lies above it). */
export function recordPassed(limits: FrontLimits, sent: { headBytes: number; bodyBytes: number }): void {
  if (sent.headBytes > LONG_HEAD_BYTES) limits.passed.head = Math.max(limits.passed.head, sent.headBytes);
  if (sent.bodyBytes > LONG_BODY_BYTES) limits.passed.body = Math.max(limits.passed.body, sent.bodyBytes);
}

/** Adds `from` into `into` (records of several tests, workers or fixtures). */
export function mergeFrontLimits(into: FrontLimits, from: FrontLimits | undefined): FrontLimits {
  if (!from) return into;
  for (const refusal of Object.values(from.refused)) {
    const key = refusalKey(refusal);
    const known = into.refused[key];
    if (!known) into.refused[key] = { ...refusal };
    else {
      known.count += refusal.count;
      known.bytes = Math.min(known.bytes, refusal.bytes);
    }
  }
  into.passed.head = Math.max(into.passed.head, from.passed.head);
  into.passed.body = Math.max(into.passed.body, from.passed.body);
  into.resent += from.resent;
  return into;
}

/** The sizes front servers set their request-head limits to (2 KB gateways, nginx and Apache 8 KB, Node and HAProxy 16 KB...). */
const ROUND_LIMITS_KB = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/**
 * The limit a refusal shows, as "about N KB": the largest round limit between the longest request
 * that got through and the shortest refused one (a limit of 8 KB reads as 8 whatever lengths the
 * run happened to send), else the shortest refused one rounded down.
 */
function about(refused: number, passed: number): string {
  if (refused >= 1024 * 1024) return `${(refused / (1024 * 1024)).toFixed(1)} MB`;
  const round = ROUND_LIMITS_KB.filter((kb) => kb * 1024 > passed && kb * 1024 <= refused).at(-1);
  return `${round ?? Math.max(1, Math.floor(refused / 1024))} KB`;
}

/**
 * One note per kind of refusal, naming the limit found: `GET requests over about 8 KB (request
 * line and headers) got 414 text/html from a server in front of the interface, not from the
 * interface: 3 request(s), the shortest 8,508 bytes, the longest that got through 7,146 bytes...`.
 */
export function frontLimitNotes(limits: FrontLimits): string[] {
  const characters = Object.values(limits.refused)
    .filter((refusal) => refusal.part === 'characters')
    .map(
      (refusal) =>
        `${refusal.method} requests whose URL held ${refusal.characters!.join(' and ')} were refused by the front server${refusal.server ? ` (${refusal.server})` : ''}: ${refusal.status} ${refusal.contentType}, not the interface's answer (${refusal.count} request(s)). Not judged, and not sent there again; the POST variants carry such inputs where the operation has one.`,
    );
  return [
    ...characters,
    ...Object.values(limits.refused)
      .filter((refusal) => refusal.part !== 'characters')
      .sort((a, b) => a.bytes - b.bytes)
      .map((refusal) => {
        const head = refusal.part === 'head';
        const passed = head ? limits.passed.head : limits.passed.body;
        const through =
          passed > 0 && passed < refusal.bytes
            ? `, the longest that got through ${passed.toLocaleString('en-US')} bytes`
            : '';
        const resent =
          head && limits.resent > 0 && refusal.method === 'GET'
            ? `; ${limits.resent} generated input(s) went through the POST variant instead`
            : '';
        const why = head
          ? `long inputs belong in the POST variants, so these ${refusal.method} requests were not judged${resent}`
          : 'a body over the documented 1 MB is beyond what the interface takes, so these were not judged';
        return `${refusal.method} requests over about ${about(refusal.bytes, passed)} (${head ? 'request line and headers' : 'body'}) got ${refusal.status} ${refusal.contentType} from a server in front of the interface, not from the interface: ${refusal.count} request(s), the shortest ${refusal.bytes.toLocaleString('en-US')} bytes${through}. ${why[0]!.toUpperCase()}${why.slice(1)}.`;
      }),
  ];
}
