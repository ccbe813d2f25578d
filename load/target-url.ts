// Where a request of a load run goes: the base URL's origin, its path (a deployment may sit under a
// prefix such as `http://host/api`, where a front server's `location /api/` routes it), then the
// operation's path and query. No imports and no URL class, so the k6 scripts use it as the Node
// runner and the probes do; nothing is decoded or encoded again, so an encoded path stays as sent.

/** The part of an absolute URL before its path: `scheme://authority`. */
export function originOf(baseUrl: string): string {
  const match = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/.exec(baseUrl);
  if (!match) throw new Error(`not an absolute URL: ${baseUrl}`);
  return match[0];
}

/** The path of a base URL without trailing slashes: '' at the root, '/api' for `http://host/api/`. */
export function basePath(baseUrl: string): string {
  const rest = baseUrl.slice(originOf(baseUrl).length);
  const end = rest.search(/[?#]/);
  if (end >= 0) throw new Error(`a base URL has no query or fragment: ${baseUrl}`);
  return rest.replace(/\/+$/, '');
}

/** A request target (path and query, e.g. `/academic/v1.0/evaluate?expr=...`) under a base path. */
export function joinPath(prefix: string, target: string): string {
  const head = prefix.replace(/\/+$/, '');
  if (target === '') return head === '' ? '/' : head;
  return `${head}${target.startsWith('/') ? '' : '/'}${target}`;
}

/** The absolute URL of a request target under a base URL, its path kept. */
export function targetUrl(baseUrl: string, target: string): string {
  return `${originOf(baseUrl)}${joinPath(basePath(baseUrl), target)}`;
}
