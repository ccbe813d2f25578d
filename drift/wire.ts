import { loadSpec, type OperationInfo } from '../openapi/spec.ts';
import { deref, isObject, sample } from './schema.ts';
import { childPath, normalizePath, type WalkIssue } from './walk.ts';

// What the raw response shows beyond its parsed body: its headers and how its numbers are written.

/**
 * Response headers any HTTP server or intermediary may send (RFC 9110/9111/9112 and common
 * transport headers); they are never drift. Everything else must be documented by the spec.
 */
export const GENERIC_HEADERS: ReadonlySet<string> = new Set([
  'accept-ranges',
  'age',
  'allow',
  'cache-control',
  'connection',
  'content-encoding',
  'content-language',
  'content-length',
  'content-location',
  'content-range',
  'content-type',
  'date',
  'etag',
  'expires',
  'keep-alive',
  'last-modified',
  'location',
  'pragma',
  'retry-after',
  'server',
  'strict-transport-security',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'vary',
  'via',
  'www-authenticate',
]);

const documentedCache = new WeakMap<object, Map<string, Set<string>>>();

/** Header names (lower case) the spec documents on any response of the operation. */
export function documentedHeaders(op: OperationInfo, doc: unknown = loadSpec()): Set<string> {
  const key = isObject(doc) ? doc : {};
  let byOperation = documentedCache.get(key);
  if (!byOperation) {
    byOperation = new Map();
    documentedCache.set(key, byOperation);
  }
  let names = byOperation.get(op.operationId);
  if (!names) {
    names = new Set();
    const paths = isObject(doc) && isObject(doc.paths) ? doc.paths : {};
    const item = deref(doc, paths[op.path]);
    const operation = isObject(item) ? deref(doc, item[op.method]) : undefined;
    const responses = isObject(operation) && isObject(operation.responses) ? operation.responses : {};
    for (const response of Object.values(responses)) {
      const resolved = deref(doc, response);
      const headers = isObject(resolved) && isObject(resolved.headers) ? resolved.headers : {};
      for (const name of Object.keys(headers)) names.add(name.toLowerCase());
    }
    byOperation.set(op.operationId, names);
  }
  return names;
}

/** One finding per response header that is neither generic nor documented for the operation. */
export function headerIssues(
  op: OperationInfo,
  headers: Record<string, string>,
  doc: unknown = loadSpec(),
): WalkIssue[] {
  const documented = documentedHeaders(op, doc);
  const issues: WalkIssue[] = [];
  for (const [raw, value] of Object.entries(headers)) {
    const name = raw.toLowerCase();
    // HTTP/2 pseudo-headers (`:status`) appear in some recordings; they are framing, not headers.
    if (name.startsWith(':') || GENERIC_HEADERS.has(name) || documented.has(name)) continue;
    const path = `header:${name}`;
    issues.push({
      kind: 'undocumented-header',
      path,
      normalizedPath: path,
      message: `response header not in the spec and not generic HTTP (sample ${sample(value, 60)})`,
      sample: sample(value),
      identity: name,
    });
  }
  return issues;
}

const MAYBE_EXPONENT = /\d[eE][+-]?\d/;

/**
 * One finding per JSON path holding a number written in exponent form (`2.266e-007`,
 * `1.0991207675E-06`). Reads the raw text, which must be valid JSON: the parsed value no longer
 * shows how the number was written.
 */
export function exponentNumberIssues(text: string): WalkIssue[] {
  if (!MAYBE_EXPONENT.test(text)) return [];
  const issues: WalkIssue[] = [];
  const seen = new Set<string>();
  for (const { path, token } of exponentNumbers(text)) {
    const normalizedPath = normalizePath(path);
    if (seen.has(normalizedPath)) continue;
    seen.add(normalizedPath);
    issues.push({
      kind: 'exponent-number',
      path,
      normalizedPath,
      message: `number written in exponent form: ${token} (= ${Number(token)})`,
      sample: token,
    });
  }
  return issues;
}

const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING_BODY = /(?:[^"\\]|\\.)*"/y;

/** The numbers in exponent form of a JSON text, with the JSON path of each. */
export function exponentNumbers(text: string): { path: string; token: string }[] {
  const found: { path: string; token: string }[] = [];
  let at = 0;
  const space = () => {
    while (at < text.length && ' \t\r\n'.includes(text[at]!)) at++;
  };
  const string = (): string => {
    const start = at;
    STRING_BODY.lastIndex = at + 1;
    if (!STRING_BODY.test(text)) throw new SyntaxError(`unterminated string at ${start}`);
    at = STRING_BODY.lastIndex;
    return JSON.parse(text.slice(start, at)) as string;
  };
  const value = (path: string, depth: number): void => {
    if (depth > 512) throw new SyntaxError('nested too deeply');
    space();
    const char = text[at];
    if (char === '{') {
      at++;
      space();
      if (text[at] === '}') {
        at++;
        return;
      }
      for (;;) {
        space();
        const key = string();
        space();
        at++; // ':'
        value(childPath(path, key), depth + 1);
        space();
        if (text[at++] === '}') return;
      }
    }
    if (char === '[') {
      at++;
      space();
      if (text[at] === ']') {
        at++;
        return;
      }
      for (let index = 0; ; index++) {
        value(`${path}[${index}]`, depth + 1);
        space();
        if (text[at++] === ']') return;
      }
    }
    if (char === '"') {
      string();
      return;
    }
    NUMBER.lastIndex = at;
    const number = NUMBER.exec(text);
    if (number) {
      at = NUMBER.lastIndex;
      if (/[eE]/.test(number[0])) found.push({ path, token: number[0] });
      return;
    }
    while (at < text.length && /[a-z]/.test(text[at]!)) at++; // true, false, null
  };
  try {
    value('$', 0);
  } catch {
    // Not JSON after all: the body walk reports that; only what was read before counts here.
  }
  return found;
}
