import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { operations } from './generated/schema.d.ts';

/** Path of the hand-written spec, the source of truth. */
export const SPEC_PATH = fileURLToPath(new URL('./openapi.yaml', import.meta.url));

/**
 * The spec as JSON, generated from SPEC_PATH with the validators (`compile-validators.ts`):
 * `{ sha256, spec }`, the hash being that of the YAML it was made from. Parsing the YAML cost every
 * process of a run a few hundred milliseconds; JSON.parse costs a few.
 */
export const GENERATED_SPEC_PATH = fileURLToPath(new URL('./generated/openapi.json', import.meta.url));

/** The operationId of one of the 13 operations. */
export type OperationId = keyof operations;

/** The group an operation belongs to; error shapes and subscriptions follow the group. */
export type Group = 'academic' | 'similarity' | 'answerSearch' | 'urlPreview' | 'eventKnowledge';

/** HTTP methods the interface uses. */
export type Method = 'get' | 'post';

/** A JSON object as parsed from the spec. */
export type JsonObject = Record<string, unknown>;

/** One parameter of an operation, with its $ref resolved. */
export interface ParameterInfo {
  name: string;
  in: 'query' | 'path' | 'header';
  required: boolean;
  schema: JsonObject;
  description?: string;
}

/** How an operation pages its results (x-kgate-paging). */
export interface PagingInfo {
  /** Name of the page-size parameter (count or $top). */
  count: string;
  /** Name of the page-start parameter (offset or $skip). */
  offset: string;
  /** JSON pointer to the paged array in a 200 body. */
  items: string;
}

/** One response the spec documents for an operation. */
export interface ResponseInfo {
  status: string;
  description: string;
  /** Media types documented for the body, each with its schema (refs unresolved). */
  content: Record<string, { schema?: JsonObject; example?: unknown; examples?: Record<string, unknown> }>;
}

/** Everything the harness needs to know about one operation, derived from the spec. */
export interface OperationInfo {
  operationId: OperationId;
  method: Method;
  path: string;
  group: Group;
  /** `GET /academic/v1.0/evaluate`: the label checks and reports use. */
  label: string;
  summary: string;
  parameters: ParameterInfo[];
  /** Media type of the request body, for the POST variants. */
  requestMediaType?: string;
  /** Schema of the request body (refs unresolved). */
  requestSchema?: JsonObject;
  /** Names of the required inputs: required parameters and required form fields. */
  requiredInputs: string[];
  responses: Record<string, ResponseInfo>;
  paging?: PagingInfo;
  /** Vendor extensions of the operation (x-kgate-*), for checks that need them. */
  extensions: JsonObject;
}

const GROUPS: readonly Group[] = ['academic', 'similarity', 'answerSearch', 'urlPreview', 'eventKnowledge'];

let cachedSpec: JsonObject | undefined;
let cachedHash: string | undefined;

/** The SHA-256 of the hand-written spec: what the generated files say they were made from. */
export function specSha256(): string {
  cachedHash ??= createHash('sha256').update(readFileSync(SPEC_PATH, 'utf8')).digest('hex');
  return cachedHash;
}

/**
 * Reads the spec once and returns the document (refs are kept as they are written): the generated
 * JSON when it was made from the YAML as it is now, else the YAML itself (edited since `npm run
 * openapi:generate`, which the validators then refuse, naming the fix).
 */
export function loadSpec(): JsonObject {
  if (cachedSpec) return cachedSpec;
  const generated = existsSync(GENERATED_SPEC_PATH)
    ? (JSON.parse(readFileSync(GENERATED_SPEC_PATH, 'utf8')) as { sha256: string; spec: JsonObject })
    : undefined;
  cachedSpec =
    generated?.sha256 === specSha256()
      ? generated.spec
      : ((createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse(
          readFileSync(SPEC_PATH, 'utf8'),
        ) as JsonObject);
  return cachedSpec;
}

/** Resolves a local `#/...` JSON pointer reference within a document. */
export function resolvePointer(doc: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) throw new Error(`only local references are supported, got ${ref}`);
  let node: unknown = doc;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !(key in node)) throw new Error(`unresolvable reference ${ref}`);
    node = (node as JsonObject)[key];
  }
  return node;
}

/** Follows `$ref` until a non-reference object is reached. */
export function deref<T = JsonObject>(doc: unknown, node: unknown): T {
  let current = node;
  for (let hops = 0; hops < 32; hops++) {
    if (current && typeof current === 'object' && typeof (current as JsonObject).$ref === 'string') {
      current = resolvePointer(doc, (current as JsonObject).$ref as string);
    } else {
      return current as T;
    }
  }
  throw new Error('reference chain too long');
}

/** The keyword the validators report an absent `expected` property under (see validator.ts). */
export const EXPECTED_SCHEMA_KEYWORD = 'x-kgate-expected';

/** What the validators know of one expected property: the evidence, and where the property is in the spec. */
export interface ExpectedProperty {
  evidence: string;
  /** JSON pointer of the property's schema in the spec ('' when the schema is not a component). */
  at: string;
}

/** The key of a response validator: operationId, the documented status (`200`, `4XX`, `default`) and media type. */
export function responseValidatorKey(operationId: string, status: string, mediaType: string): string {
  return `${operationId} ${status} ${mediaType}`;
}

/** How firmly a response property must be there (`x-kgate-level`). */
export type PropertyLevel = 'required' | 'expected' | 'optional';

/** The three levels, strictest first. */
export const PROPERTY_LEVELS: readonly PropertyLevel[] = ['required', 'expected', 'optional'];

/** One property declared by a response schema, with its level and the evidence for it. */
export interface PropertyDeclaration {
  /** The component schema that declares it; a nested inline object adds its path (`AcademicError.error`). */
  schema: string;
  /** The property name. */
  name: string;
  /** `x-kgate-level`, or undefined when the spec forgot it. */
  level: PropertyLevel | undefined;
  /** `x-kgate-evidence`, or undefined when the spec forgot it. */
  evidence: string | undefined;
  /** Whether the declaring object lists the property in `required`. */
  inRequired: boolean;
  /** JSON pointer of the property's schema in the spec. */
  specPointer: string;
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Names of the component schemas reachable from a documented response body. */
function responseSchemaNames(doc: JsonObject): Set<string> {
  const schemas = ((doc.components as JsonObject | undefined)?.schemas ?? {}) as JsonObject;
  const names = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const ref = (node as JsonObject).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
      const name = ref.slice('#/components/schemas/'.length);
      if (!names.has(name)) {
        names.add(name);
        visit(schemas[name]);
      }
    }
    for (const value of Object.values(node)) visit(value);
  };
  for (const op of listOperations(doc))
    for (const response of Object.values(op.responses))
      for (const media of Object.values(response.content)) visit(media.schema);
  return names;
}

/**
 * Every property declared by a schema a response body uses (the request forms are left out),
 * nested inline objects included. `allOf` parts that only narrow a property declared in the
 * base schema (the error-code consts) declare nothing new and are skipped.
 */
export function propertyDeclarations(doc: JsonObject): PropertyDeclaration[] {
  const schemas = ((doc.components as JsonObject | undefined)?.schemas ?? {}) as Record<string, JsonObject>;
  const out: PropertyDeclaration[] = [];
  const walk = (node: JsonObject, schema: string, pointer: string): void => {
    const required = new Set((node.required as string[] | undefined) ?? []);
    for (const [name, raw] of Object.entries((node.properties ?? {}) as Record<string, JsonObject>)) {
      const specPointer = `${pointer}/properties/${escapePointer(name)}`;
      out.push({
        schema,
        name,
        level: raw['x-kgate-level'] as PropertyLevel | undefined,
        evidence: raw['x-kgate-evidence'] as string | undefined,
        inRequired: required.has(name),
        specPointer,
      });
      if (raw.properties) walk(raw, `${schema}.${name}`, specPointer);
    }
  };
  for (const name of responseSchemaNames(doc)) {
    const schema = schemas[name];
    if (schema) walk(schema, name, `#/components/schemas/${escapePointer(name)}`);
  }
  return out;
}

/** The response properties at level `expected`: missing is a warning, a failure only under --strict. */
export function expectedProperties(doc: JsonObject = loadSpec()): PropertyDeclaration[] {
  return propertyDeclarations(doc).filter((property) => property.level === 'expected');
}

/** Builds the operation list from a parsed spec document. */
export function listOperations(doc: JsonObject): OperationInfo[] {
  const paths = (doc.paths ?? {}) as Record<string, JsonObject>;
  const result: OperationInfo[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const method of ['get', 'post'] as const) {
      const op = item[method] as JsonObject | undefined;
      if (!op) continue;
      const group = op['x-kgate-group'] as Group;
      if (!GROUPS.includes(group))
        throw new Error(`${method.toUpperCase()} ${path}: x-kgate-group must be one of ${GROUPS.join(', ')}`);
      const parameters = ((op.parameters ?? []) as unknown[]).map((p) => {
        const param = deref<JsonObject>(doc, p);
        return {
          name: param.name as string,
          in: param.in as ParameterInfo['in'],
          required: param.required === true,
          schema: deref<JsonObject>(doc, param.schema ?? {}),
          description: param.description as string | undefined,
        };
      });
      const body = op.requestBody ? deref<JsonObject>(doc, op.requestBody) : undefined;
      const bodyContent = body?.content as Record<string, JsonObject> | undefined;
      const requestMediaType = bodyContent ? Object.keys(bodyContent)[0] : undefined;
      const responses: Record<string, ResponseInfo> = {};
      for (const [status, raw] of Object.entries((op.responses ?? {}) as JsonObject)) {
        const response = deref<JsonObject>(doc, raw);
        responses[status] = {
          status,
          description: (response.description as string) ?? '',
          content: (response.content ?? {}) as ResponseInfo['content'],
        };
      }
      const formSchema = requestMediaType ? deref<JsonObject>(doc, bodyContent?.[requestMediaType]?.schema ?? {}) : {};
      const requiredInputs = [
        ...parameters.filter((p) => p.required).map((p) => p.name),
        ...((formSchema.required as string[] | undefined) ?? []),
      ];
      const extensions = Object.fromEntries(Object.entries(op).filter(([key]) => key.startsWith('x-')));
      result.push({
        operationId: op.operationId as OperationId,
        method,
        path,
        group,
        label: `${method.toUpperCase()} ${path}`,
        summary: (op.summary as string) ?? '',
        parameters,
        requestMediaType,
        requestSchema: requestMediaType ? (bodyContent?.[requestMediaType]?.schema as JsonObject) : undefined,
        requiredInputs,
        responses,
        paging: op['x-kgate-paging'] as PagingInfo | undefined,
        extensions,
      });
    }
  }
  return result;
}

/** The 13 operations of the interface, in spec order. */
export const OPERATIONS: readonly OperationInfo[] = listOperations(loadSpec());

const BY_ID = new Map(OPERATIONS.map((op) => [op.operationId as string, op]));

/** All operationIds, in spec order. */
export const OPERATION_IDS: readonly OperationId[] = OPERATIONS.map((op) => op.operationId);

/** Looks an operation up by operationId. */
export function getOperation(operationId: string): OperationInfo | undefined {
  return BY_ID.get(operationId);
}

/** The label of an operation, e.g. `GET /academic/v1.0/evaluate`. */
export function operationLabel(op: Pick<OperationInfo, 'method' | 'path'>): string {
  return `${op.method.toUpperCase()} ${op.path}`;
}

/** An operation matched to a concrete request path, with its path parameters. */
export interface OperationMatch {
  operation: OperationInfo;
  pathParams: Record<string, string>;
  /** The part of the request path before the operation's path (a deployment's prefix). */
  prefix: string;
}

const MATCHERS = OPERATIONS.map((operation) => {
  const names: string[] = [];
  const source = operation.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]+)\}/g, (_m, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { operation, names, regex: new RegExp(`^(.*?)${source}/?$`) };
});

/**
 * Finds the operation a method and path belong to. The path may carry a deployment prefix
 * (`/some/prefix/academic/v1.0/evaluate`).
 */
export function matchOperation(method: string, pathname: string): OperationMatch | undefined {
  const lower = method.toLowerCase();
  for (const { operation, names, regex } of MATCHERS) {
    if (operation.method !== lower) continue;
    const match = regex.exec(pathname);
    if (!match) continue;
    const pathParams: Record<string, string> = {};
    names.forEach((name, i) => {
      pathParams[name] = safeDecode(match[i + 2] ?? '');
    });
    return { operation, pathParams, prefix: match[1] ?? '' };
  }
  return undefined;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
