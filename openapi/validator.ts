import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { getOperation, type JsonObject, loadSpec, type OperationInfo } from './spec.ts';

/** One schema violation, located by a JSON pointer into the validated value. */
export interface SchemaError {
  /** JSON pointer to the offending value (for a missing property: where it should be). */
  pointer: string;
  /** The JSON Schema keyword that failed (required, type, const, pattern...). */
  keyword: string;
  /** A sentence a person can read, starting with the pointer. */
  message: string;
  /** Where in the spec the failing rule is. */
  schemaPath: string;
  /** For request validation: the parameter or form field at fault. */
  parameter?: string;
}

/** The outcome of validating one body or request against the spec. */
export interface ValidationResult {
  /** True when there are no errors; warnings do not count. */
  valid: boolean;
  errors: SchemaError[];
  /**
   * Properties at level `expected` (`x-kgate-level`) that are absent: documented, but the real
   * service omitted them. Keyword `expected`, pointer where the property should be, message
   * with the spec's evidence. A gate fails on them only under --strict.
   */
  warnings: SchemaError[];
  /** False when the spec documents no response for that status or media type (then valid is false). */
  documented: boolean;
}

/** The request parts validateRequest checks, as they arrive on the wire (strings). */
export interface RequestParts {
  query?: Record<string, string>;
  form?: Record<string, string>;
  pathParams?: Record<string, string>;
}

const DEFS_ID = 'urn:kgate:openapi';
const ANNOTATIONS = [
  'example',
  'discriminator',
  'xml',
  'externalDocs',
  'x-kgate-observed',
  'x-kgate-known-values',
  'x-kgate-drift',
  'x-kgate-discriminator',
  'x-kgate-level',
  'x-kgate-evidence',
];

/** The keyword of a warning: a property at level `expected` is absent. */
export const EXPECTED_KEYWORD = 'expected';

/** The ajv keyword prepareSchema adds to an object: its expected properties, each with its evidence. */
const EXPECTED_SCHEMA_KEYWORD = 'x-kgate-expected';

/** What the expected keyword knows of one property: the evidence, and where the property is in the spec. */
interface ExpectedProperty {
  evidence: string;
  /** JSON pointer of the property's schema in the spec ('' when the schema is not a component). */
  at: string;
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The expected properties of an object schema, or undefined when it has none. */
function expectedOf(schema: JsonObject, at: string): Record<string, ExpectedProperty> | undefined {
  const properties = schema.properties as Record<string, JsonObject> | undefined;
  if (!properties || typeof properties !== 'object') return undefined;
  const expected = Object.entries(properties).filter(([, property]) => property?.['x-kgate-level'] === 'expected');
  if (expected.length === 0) return undefined;
  return Object.fromEntries(
    expected.map(([name, property]) => [
      name,
      {
        evidence: String(property['x-kgate-evidence'] ?? ''),
        at: at && `${at}/properties/${escapePointer(name)}`,
      },
    ]),
  );
}

/**
 * Reports absent expected properties as errors of their own keyword, which validateResponse
 * turns into warnings. It must not sit under anyOf, oneOf, not or an if condition, where a
 * failure would change which branch applies; the spec has none there.
 */
function checkExpected(schema: Record<string, ExpectedProperty>, data: unknown): boolean {
  const object = data as Record<string, unknown>;
  const missing = Object.keys(schema).filter((name) => object[name] === undefined);
  if (missing.length === 0) return true;
  checkExpected.errors = missing.map((name) => ({
    keyword: EXPECTED_SCHEMA_KEYWORD,
    params: { missingProperty: name, ...schema[name] },
    message: 'is expected but missing',
  }));
  return false;
}
checkExpected.errors = [] as Partial<ErrorObject>[];

/**
 * Rewrites spec references into the shared $defs document, tagged unions into if/then chains,
 * and the expected properties of each object into the keyword that reports them. `at` is the
 * node's JSON pointer in the spec, when known.
 */
function prepareSchema(node: unknown, defs: JsonObject, at = ''): unknown {
  if (Array.isArray(node)) return node.map((item, i) => prepareSchema(item, defs, at && `${at}/${i}`));
  if (node === null || typeof node !== 'object') return node;
  const source = node as JsonObject;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
      out.$ref = `${DEFS_ID}#/$defs/${value.slice('#/components/schemas/'.length)}`;
    } else {
      out[key] = prepareSchema(value, defs, at && `${at}/${escapePointer(key)}`);
    }
  }
  const expected = expectedOf(source, at);
  if (expected) out[EXPECTED_SCHEMA_KEYWORD] = expected;
  const tag = source['x-kgate-discriminator'];
  if (typeof tag === 'string' && Array.isArray(source.oneOf)) {
    // Check only the branch the tag selects, so errors point into it instead of listing every branch.
    const branches = (source.oneOf as JsonObject[]).map((branch) => {
      const name = String(branch.$ref).slice('#/components/schemas/'.length);
      const target = defs[name] as JsonObject | undefined;
      const tagSchema = (target?.properties as JsonObject | undefined)?.[tag] as JsonObject | undefined;
      return { ref: `${DEFS_ID}#/$defs/${name}`, value: tagSchema?.const };
    });
    const fallback = branches.find((branch) => branch.value === undefined);
    let chain: JsonObject = fallback ? { $ref: fallback.ref } : { not: {} };
    for (const branch of branches.filter((b) => b.value !== undefined).reverse()) {
      chain = {
        if: { properties: { [tag]: { const: branch.value } }, required: [tag] },
        // biome-ignore lint/suspicious/noThenProperty: a JSON Schema if/then/else, not a thenable.
        then: { $ref: branch.ref },
        else: chain,
      };
    }
    delete out.oneOf;
    out.type = 'object';
    out.required = [tag];
    out.allOf = [chain];
  }
  return out;
}

function createAjv(coerce: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    strict: true,
    allErrors: true,
    allowUnionTypes: true,
    coerceTypes: coerce,
    validateFormats: true,
  });
  addFormats.default(ajv);
  for (const keyword of ANNOTATIONS)
    ajv.addKeyword({ keyword, schemaType: ['object', 'array', 'string', 'boolean', 'number'] });
  ajv.addKeyword({
    keyword: EXPECTED_SCHEMA_KEYWORD,
    type: 'object',
    schemaType: 'object',
    errors: true,
    validate: checkExpected,
  });
  const schemas = ((loadSpec().components as JsonObject)?.schemas ?? {}) as JsonObject;
  const defs: JsonObject = {};
  for (const [name, schema] of Object.entries(schemas))
    defs[name] = prepareSchema(schema, schemas, `#/components/schemas/${escapePointer(name)}`);
  ajv.addSchema({ $id: DEFS_ID, $defs: defs });
  return ajv;
}

let responseAjv: Ajv2020 | undefined;
let requestAjv: Ajv2020 | undefined;
const responseValidators = new Map<string, ValidateFunction | null>();
const requestValidators = new Map<string, ValidateFunction>();

/** Normalizes a Content-Type header to its bare media type. */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  const bare = contentType?.split(';')[0]?.trim().toLowerCase();
  return bare ? bare : undefined;
}

/** Finds the documented response of an operation for a status: exact code, then `4XX`, then `default`. */
function documentedResponse(op: OperationInfo, status: number) {
  return op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
}

function responseValidator(op: OperationInfo, status: number, mediaType: string): ValidateFunction | null | undefined {
  const key = `${op.operationId} ${status} ${mediaType}`;
  if (responseValidators.has(key)) return responseValidators.get(key);
  const response = documentedResponse(op, status);
  const content = response?.content[mediaType];
  if (!content) return undefined;
  responseAjv ??= createAjv(false);
  const schemas = ((loadSpec().components as JsonObject)?.schemas ?? {}) as JsonObject;
  const validate = content.schema ? responseAjv.compile(prepareSchema(content.schema, schemas) as JsonObject) : null;
  responseValidators.set(key, validate);
  return validate;
}

/** Sorts ajv's errors into errors and warnings (absent expected properties), each with its pointer. */
function toFindings(
  errors: ErrorObject[] | null | undefined,
  parameterOf?: (pointer: string) => string | undefined,
): { errors: SchemaError[]; warnings: SchemaError[] } {
  const list = errors ?? [];
  const expected = list.filter((error) => error.keyword === EXPECTED_SCHEMA_KEYWORD);
  const rest = expected.length > 0 ? list.filter((error) => error.keyword !== EXPECTED_SCHEMA_KEYWORD) : list;
  // An if/then chain reports its own "must match then" next to the real errors: drop that noise.
  // Alone it is kept, unless the branch failed only on a warning.
  const meaningful = rest.filter((error) => error.keyword !== 'if');
  const kept = meaningful.length > 0 || expected.length > 0 ? meaningful : rest;
  return {
    errors: kept.map((error) => toSchemaError(error, parameterOf)),
    warnings: expected.map((error) => toSchemaError(error, parameterOf)),
  };
}

function toSchemaError(error: ErrorObject, parameterOf?: (pointer: string) => string | undefined): SchemaError {
  const absent = error.keyword === 'required' || error.keyword === EXPECTED_SCHEMA_KEYWORD;
  const name = String(error.params.missingProperty);
  const missing = absent ? `/${escapePointer(name)}` : '';
  const pointer = `${error.instancePath}${missing}` || '/';
  let detail = error.message ?? 'is invalid';
  let keyword = error.keyword;
  let schemaPath = error.schemaPath;
  if (error.keyword === 'const') detail = `must be ${JSON.stringify(error.params.allowedValue)}`;
  if (error.keyword === 'enum') detail = `must be one of ${JSON.stringify(error.params.allowedValues)}`;
  if (error.keyword === 'required') detail = 'is required but missing';
  if (error.keyword === EXPECTED_SCHEMA_KEYWORD) {
    keyword = EXPECTED_KEYWORD;
    detail = `is expected but missing (${error.params.evidence})`;
    // Point at the property's level in the spec rather than at the keyword the validator added.
    if (error.params.at) schemaPath = `${error.params.at}/x-kgate-level`;
  }
  const result: SchemaError = { pointer, keyword, message: `${pointer} ${detail}`, schemaPath };
  const parameter = parameterOf?.(pointer);
  if (parameter) {
    result.parameter = parameter;
    result.message = `parameter '${parameter}' ${detail}`;
  }
  return result;
}

/** JSON pointer of an operation in the spec. */
function operationPointer(op: OperationInfo): string {
  return `#/paths/${op.path.replace(/~/g, '~0').replace(/\//g, '~1')}/${op.method}`;
}

function unknownOperation(operationId: string): never {
  throw new Error(`unknown operationId '${operationId}'`);
}

/**
 * Validates a response body against the spec for its operation, status and media type.
 * Compiles one validator per (operation, status, media type), lazily, and reuses it.
 */
export function validateResponse(
  operationId: string,
  status: number,
  contentType: string | undefined,
  body: unknown,
): ValidationResult {
  const op = getOperation(operationId) ?? unknownOperation(operationId);
  const response = documentedResponse(op, status);
  if (!response) {
    const documented = Object.keys(op.responses).join(', ');
    return {
      valid: false,
      documented: false,
      errors: [
        {
          pointer: '',
          keyword: 'status',
          message: `status ${status} is not documented for ${op.operationId} (documented: ${documented})`,
          schemaPath: `${operationPointer(op)}/responses`,
        },
      ],
      warnings: [],
    };
  }
  const mediaType = mediaTypeOf(contentType);
  const validate = mediaType ? responseValidator(op, status, mediaType) : undefined;
  if (validate === undefined) {
    const documented = Object.keys(response.content).join(', ') || 'no body';
    return {
      valid: false,
      documented: false,
      errors: [
        {
          pointer: '',
          keyword: 'mediaType',
          message: `media type ${mediaType ?? '(none)'} is not documented for ${op.operationId} ${status} (documented: ${documented})`,
          schemaPath: `${operationPointer(op)}/responses/${status}/content`,
        },
      ],
      warnings: [],
    };
  }
  if (validate === null || validate(body)) return { valid: true, documented: true, errors: [], warnings: [] };
  const { errors, warnings } = toFindings(validate.errors);
  return { valid: errors.length === 0, documented: true, errors, warnings };
}

function requestSchema(op: OperationInfo): JsonObject {
  const query: JsonObject = { type: 'object', properties: {}, required: [] as string[] };
  const path: JsonObject = { type: 'object', properties: {}, required: [] as string[] };
  for (const param of op.parameters) {
    const target = param.in === 'path' ? path : param.in === 'query' ? query : undefined;
    if (!target) continue;
    (target.properties as JsonObject)[param.name] = param.schema;
    if (param.required) (target.required as string[]).push(param.name);
  }
  const properties: JsonObject = { query, pathParams: path };
  const required = ['query', 'pathParams'];
  if (op.requestSchema) {
    properties.form = op.requestSchema;
    required.push('form');
  }
  return { type: 'object', properties, required };
}

/**
 * Validates the parameters of a request (query strings, form fields, path parameters), with
 * the strings coerced to the documented types. Errors name the parameter at fault.
 */
export function validateRequest(operationId: string, parts: RequestParts): ValidationResult {
  const op = getOperation(operationId) ?? unknownOperation(operationId);
  let validate = requestValidators.get(op.operationId);
  if (!validate) {
    requestAjv ??= createAjv(true);
    const schemas = ((loadSpec().components as JsonObject)?.schemas ?? {}) as JsonObject;
    const compiled = requestAjv.compile(prepareSchema(requestSchema(op), schemas) as JsonObject);
    requestValidators.set(op.operationId, compiled);
    validate = compiled;
  }
  const data = {
    query: { ...(parts.query ?? {}) },
    pathParams: { ...(parts.pathParams ?? {}) },
    ...(op.requestSchema ? { form: { ...(parts.form ?? {}) } } : {}),
  };
  if (validate(data)) return { valid: true, documented: true, errors: [], warnings: [] };
  const parameterOf = (pointer: string) => pointer.split('/')[2]?.replace(/~1/g, '/').replace(/~0/g, '~');
  const { errors, warnings } = toFindings(validate.errors, parameterOf);
  return { valid: errors.length === 0, documented: true, errors, warnings };
}
