import type { Subscription } from './auth.ts';
import type { ApiGroup } from './errors.ts';

/** One operation of the interface as the router knows it. */
export interface Route {
  operationId: string;
  group: ApiGroup;
  subscription: Subscription;
  method: 'GET' | 'POST';
  path: string;
}

const ACADEMIC_OPS = ['interpret', 'evaluate', 'calchistogram', 'similarity'] as const;

/** The 13 operations (ids as in openapi/openapi.yaml). */
export const ROUTES: Route[] = [
  ...ACADEMIC_OPS.flatMap((name): Route[] =>
    (['GET', 'POST'] as const).map((method) => ({
      operationId: `${name}${method === 'GET' ? 'Get' : 'Post'}`,
      group: name === 'similarity' ? 'similarity' : 'academic',
      subscription: 'academic',
      method,
      path: `/academic/v1.0/${name}`,
    })),
  ),
  {
    operationId: 'answerSearch',
    group: 'answerSearch',
    subscription: 'answerSearch',
    method: 'GET',
    path: '/answersearch/v7.0/search',
  },
  {
    operationId: 'urlPreview',
    group: 'urlPreview',
    subscription: 'urlPreview',
    method: 'GET',
    path: '/urlpreview/v7.0/search',
  },
  {
    operationId: 'hotEvents',
    group: 'eventKnowledge',
    subscription: 'eventKnowledge',
    method: 'GET',
    path: '/eventknowledge/v1.0/hotevents',
  },
  {
    operationId: 'relatedEvents',
    group: 'eventKnowledge',
    subscription: 'eventKnowledge',
    method: 'GET',
    path: '/eventknowledge/v1.0/relatedevents',
  },
  {
    operationId: 'eventDocuments',
    group: 'eventKnowledge',
    subscription: 'eventKnowledge',
    method: 'GET',
    path: '/eventknowledge/v1.0/events/{event_id}/documents',
  },
];

const BY_PATH = new Map<string, Route[]>();
for (const route of ROUTES) {
  const list = BY_PATH.get(route.path) ?? [];
  list.push(route);
  BY_PATH.set(route.path, list);
}
/** Route by operation id. */
export const ROUTE_BY_ID = new Map(ROUTES.map((route) => [route.operationId, route]));

const DOCUMENTS = /^\/eventknowledge\/v1\.0\/events\/([^/]+)\/documents$/;

/** What a path resolves to: the routes at that path (one per method) and the path parameters. */
export interface PathMatch {
  routes: Route[];
  pathParams: Record<string, string>;
}

/** Resolves a request path (without query) to its routes, or undefined for an unknown path. */
export function matchPath(path: string): PathMatch | undefined {
  const routes = BY_PATH.get(path);
  if (routes) return { routes, pathParams: {} };
  const documents = DOCUMENTS.exec(path);
  if (documents) {
    let eventId: string;
    try {
      eventId = decodeURIComponent(documents[1]!);
    } catch {
      eventId = documents[1]!;
    }
    return {
      routes: BY_PATH.get('/eventknowledge/v1.0/events/{event_id}/documents')!,
      pathParams: { event_id: eventId },
    };
  }
  return undefined;
}

/** The group whose error shape an unknown path under a group's prefix is answered in. */
export function groupOfPath(path: string): ApiGroup | 'none' {
  if (path.startsWith('/academic/')) return path.startsWith('/academic/v1.0/similarity') ? 'similarity' : 'academic';
  if (path.startsWith('/answersearch/')) return 'answerSearch';
  if (path.startsWith('/urlpreview/')) return 'urlPreview';
  if (path.startsWith('/eventknowledge/')) return 'eventKnowledge';
  return 'none';
}
