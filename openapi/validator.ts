import type { ErrorObject, ValidateFunction } from 'ajv';
import { REQUEST_VALIDATORS, RESPONSE_VALIDATORS, SPEC_SHA256 } from './generated/validators.js';
import { EXPECTED_SCHEMA_KEYWORD, getOperation, type OperationInfo, responseValidatorKey, specSha256 } from './spec.ts';

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
  /**
   * Errors and warnings counted but not listed: a validator lists the first MAX_LISTED_ERRORS of
   * a body (compile-validators.ts), so that a body of a million invalid entries costs no more than
   * their count. Absent when everything found is listed.
   */
  unlisted?: { errors: number; warnings: number };
}

/** The request parts validateRequest checks, as they arrive on the wire (strings). */
export interface RequestParts {
  query?: Record<string, string>;
  form?: Record<string, string>;
  pathParams?: Record<string, string>;
}

/** The keyword of a warning: a property at level `expected` is absent. */
export const EXPECTED_KEYWORD = 'expected';

let checked = false;

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * The validators, compiled at build time from the spec (`compile-validators.ts`): refused, naming
 * the fix, when the spec changed since, so no run judges by the rules of another spec.
 */
function validators(): { responses: typeof RESPONSE_VALIDATORS; requests: typeof REQUEST_VALIDATORS } {
  if (!checked && SPEC_SHA256 !== specSha256())
    throw new Error(
      'openapi/generated/validators.js was compiled from another openapi/openapi.yaml; fix: npm run openapi:generate',
    );
  checked = true;
  return { responses: RESPONSE_VALIDATORS, requests: REQUEST_VALIDATORS };
}

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
  const response = documentedResponse(op, status);
  if (!response?.content[mediaType]) return undefined;
  return validators().responses[responseValidatorKey(op.operationId, response.status, mediaType)];
}

/** Kinds of the errors a validator counted beyond those it lists (compile-validators.ts). */
const UNLISTED_WARNING = 1;
const UNLISTED_IF = 2;

/**
 * Sorts ajv's errors into errors and warnings (absent expected properties), each with its pointer,
 * in one pass; the errors beyond the listed ones are counted by their kind (compile-validators.ts).
 */
function toFindings(
  errors: (ErrorObject[] & { unlisted?: { kinds: Uint8Array; size: number } }) | null | undefined,
  parameterOf?: (pointer: string) => string | undefined,
): Pick<ValidationResult, 'errors' | 'warnings' | 'unlisted'> {
  const sorted = { warnings: new Sorted(), ifs: new Sorted(), others: new Sorted() };
  for (const error of errors ?? [])
    (error.keyword === EXPECTED_SCHEMA_KEYWORD
      ? sorted.warnings
      : error.keyword === 'if'
        ? sorted.ifs
        : sorted.others
    ).listed.push(error);
  const tail = errors?.unlisted;
  for (let i = 0; i < (tail?.size ?? 0); i++) {
    const kind = tail!.kinds[i];
    (kind === UNLISTED_WARNING ? sorted.warnings : kind === UNLISTED_IF ? sorted.ifs : sorted.others).unlisted++;
  }
  // An if/then chain reports its own "must match then" next to the real errors: drop that noise.
  // Alone it is kept, unless the branch failed only on a warning.
  const kept = sorted.others.count > 0 || sorted.warnings.count > 0 ? sorted.others : sorted.ifs;
  const unlisted = { errors: kept.unlisted, warnings: sorted.warnings.unlisted };
  return {
    errors: kept.listed.map((error) => toSchemaError(error, parameterOf)),
    warnings: sorted.warnings.listed.map((error) => toSchemaError(error, parameterOf)),
    ...(unlisted.errors + unlisted.warnings > 0 ? { unlisted } : {}),
  };
}

/** Errors of one kind: those listed, in order, and those counted only. */
class Sorted {
  readonly listed: ErrorObject[] = [];
  unlisted = 0;
  get count(): number {
    return this.listed.length + this.unlisted;
  }
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
 * Validates a response body against the spec for its operation, status and media type, with the
 * validator compiled at build time for that (operation, documented status, media type).
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
  const findings = toFindings(validate.errors);
  return { valid: findings.errors.length + (findings.unlisted?.errors ?? 0) === 0, documented: true, ...findings };
}

/**
 * Validates the parameters of a request (query strings, form fields, path parameters), with
 * the strings coerced to the documented types. Errors name the parameter at fault.
 */
export function validateRequest(operationId: string, parts: RequestParts): ValidationResult {
  const op = getOperation(operationId) ?? unknownOperation(operationId);
  const validate = validators().requests[op.operationId]!;
  const data = {
    query: { ...(parts.query ?? {}) },
    pathParams: { ...(parts.pathParams ?? {}) },
    ...(op.requestSchema ? { form: { ...(parts.form ?? {}) } } : {}),
  };
  if (validate(data)) return { valid: true, documented: true, errors: [], warnings: [] };
  const parameterOf = (pointer: string) => pointer.split('/')[2]?.replace(/~1/g, '/').replace(/~0/g, '~');
  const findings = toFindings(validate.errors, parameterOf);
  return { valid: findings.errors.length + (findings.unlisted?.errors ?? 0) === 0, documented: true, ...findings };
}
