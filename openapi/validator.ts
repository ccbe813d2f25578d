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
  valid: boolean;
  errors: SchemaError[];
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
];

/** Rewrites spec references into the shared $defs document, and tagged unions into if/then chains. */
function prepareSchema(node: unknown, defs: JsonObject): unknown {
  if (Array.isArray(node)) return node.map((item) => prepareSchema(item, defs));
  if (node === null || typeof node !== 'object') return node;
  const source = node as JsonObject;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
      out.$ref = `${DEFS_ID}#/$defs/${value.slice('#/components/schemas/'.length)}`;
    } else {
      out[key] = prepareSchema(value, defs);
    }
  }
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
  const schemas = ((loadSpec().components as JsonObject)?.schemas ?? {}) as JsonObject;
  const defs: JsonObject = {};
  for (const [name, schema] of Object.entries(schemas)) defs[name] = prepareSchema(schema, schemas);
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

function toSchemaErrors(
  errors: ErrorObject[] | null | undefined,
  parameterOf?: (pointer: string) => string | undefined,
) {
  const list = errors ?? [];
  // An if/then chain reports its own "must match then" next to the real errors: drop that noise.
  const meaningful = list.filter((error) => error.keyword !== 'if');
  return (meaningful.length > 0 ? meaningful : list).map((error): SchemaError => {
    const missing =
      error.keyword === 'required'
        ? `/${String(error.params.missingProperty).replace(/~/g, '~0').replace(/\//g, '~1')}`
        : '';
    const pointer = `${error.instancePath}${missing}` || '/';
    let detail = error.message ?? 'is invalid';
    if (error.keyword === 'const') detail = `must be ${JSON.stringify(error.params.allowedValue)}`;
    if (error.keyword === 'enum') detail = `must be one of ${JSON.stringify(error.params.allowedValues)}`;
    if (error.keyword === 'required') detail = 'is required but missing';
    const result: SchemaError = {
      pointer,
      keyword: error.keyword,
      message: `${pointer} ${detail}`,
      schemaPath: error.schemaPath,
    };
    const parameter = parameterOf?.(pointer);
    if (parameter) {
      result.parameter = parameter;
      result.message = `parameter '${parameter}' ${detail}`;
    }
    return result;
  });
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
    };
  }
  if (validate === null || validate(body)) return { valid: true, errors: [], documented: true };
  return { valid: false, errors: toSchemaErrors(validate.errors), documented: true };
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
  if (validate(data)) return { valid: true, errors: [], documented: true };
  const parameterOf = (pointer: string) => pointer.split('/')[2]?.replace(/~1/g, '/').replace(/~0/g, '~');
  return { valid: false, errors: toSchemaErrors(validate.errors, parameterOf), documented: true };
}
