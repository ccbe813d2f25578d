// The spec's validators, compiled once at build time: ajv (JSON Schema 2020-12, ajv-formats,
// strict) turns every documented response body and every operation's request parameters into
// validation code, emitted as one module (`generated/validators.js`, as openapi-typescript emits
// the types), beside the spec as JSON (`generated/openapi.json`). Every process of a run loads
// them instead of parsing the YAML and compiling the schemas again. `npm run openapi:generate`
// writes them, `npm run openapi:check` fails when the committed ones are stale.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { _, Ajv2020, type KeywordCxt } from 'ajv/dist/2020.js';
import standalone from 'ajv/dist/standalone/index.js';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import {
  EXPECTED_SCHEMA_KEYWORD,
  type ExpectedProperty,
  GENERATED_SPEC_PATH,
  type JsonObject,
  listOperations,
  type OperationInfo,
  responseValidatorKey,
  SPEC_PATH,
} from './spec.ts';

const DEFS_ID = 'urn:kgate:openapi';
/** Spec keywords that only annotate (ajv's strict mode refuses unknown keywords). */
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

/**
 * Reports each absent expected property as an error of its own keyword, which the validator turns
 * into a warning. It must not sit under anyOf, oneOf, not or an if condition, where a failure would
 * change which branch applies; the spec has none there.
 */
function expectedKeywordCode(cxt: KeywordCxt): void {
  const { gen, data } = cxt;
  for (const [name, property] of Object.entries(cxt.schema as Record<string, ExpectedProperty>)) {
    gen.if(_`${data}[${name}] === undefined`, () =>
      cxt.error(false, { missingProperty: name, evidence: property.evidence, at: property.at }),
    );
  }
}

function createAjv(spec: JsonObject, coerce: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    strict: true,
    allErrors: true,
    allowUnionTypes: true,
    coerceTypes: coerce,
    validateFormats: true,
    code: { source: true, esm: true },
  });
  addFormats.default(ajv);
  for (const keyword of ANNOTATIONS)
    ajv.addKeyword({ keyword, schemaType: ['object', 'array', 'string', 'boolean', 'number'] });
  ajv.addKeyword({
    keyword: EXPECTED_SCHEMA_KEYWORD,
    type: 'object',
    schemaType: 'object',
    error: {
      message: 'is expected but missing',
      params: ({ params }) =>
        _`{missingProperty: ${params.missingProperty}, evidence: ${params.evidence}, at: ${params.at}}`,
    },
    code: expectedKeywordCode,
  });
  const schemas = ((spec.components as JsonObject)?.schemas ?? {}) as JsonObject;
  const defs: JsonObject = {};
  for (const [name, schema] of Object.entries(schemas))
    defs[name] = prepareSchema(schema, schemas, `#/components/schemas/${escapePointer(name)}`);
  ajv.addSchema({ $id: DEFS_ID, $defs: defs });
  return ajv;
}

/** The schema validateRequest checks a request against: its query, path parameters and form fields. */
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
 * Schema errors a validator lists in full; further ones are counted by kind (see boundedErrors). A
 * body of a million invalid entries would otherwise hold a million error objects, and ajv's own way
 * of gathering the errors of a referenced schema (a copy of the whole list for each entry,
 * `vErrors.concat`) takes time square in their number.
 */
export const MAX_LISTED_ERRORS = 100;

/**
 * ajv's standalone code, its errors gathered in place and bounded. ajv keeps one list per call,
 * `vErrors`, whose length is the count of errors so far: it compares counts to tell a failed
 * branch, and cuts the list back to a count when a branch is dropped. Each of those uses goes
 * through a helper (`pushError`, `appendErrors`, `countOf`, `truncate`) over a list that holds the
 * first MAX_LISTED_ERRORS errors and, beyond them, one byte per error saying its kind. The count
 * stays exact, so validity and every branch ajv takes are unchanged; only the errors beyond the
 * list's head are not kept.
 */
function boundedErrors(code: string): string {
  const bounded = code
    .replace(/vErrors\.push\((err\d+)\)/g, 'pushError(vErrors, $1)')
    .replace(/vErrors\.concat\((validate\d+)\.errors\)/g, 'appendErrors(vErrors, $1.errors)')
    .replace(/errors = vErrors\.length;/g, 'errors = countOf(vErrors);')
    .replace(/vErrors\.length = (_errs\d+);/g, 'truncate(vErrors, $1);');
  // Any other use of the list would misread it: ajv's code must be of the shape rewritten here.
  const left = bounded.match(/vErrors(?!\s*=(?!=)|\s*[!=]==\s*null|;|,|\)).{0,20}/g);
  if (!bounded.includes('pushError(') || left)
    throw new Error(`ajv's error handling changed shape: ${left?.slice(0, 3).join(' | ')}`);
  return bounded;
}

/**
 * The helpers boundedErrors' code calls, defined once in the module. The kind of an error beyond
 * the listed ones is what validator.ts sorts errors by: 1 a warning (an absent expected property),
 * 2 an if/then chain's own error, 3 any other.
 */
const ERROR_HELPERS = `const MAX_LISTED_ERRORS = ${MAX_LISTED_ERRORS};
function kindOf(error) {
  return error.keyword === ${JSON.stringify(EXPECTED_SCHEMA_KEYWORD)} ? 1 : error.keyword === 'if' ? 2 : 3;
}
function addKind(list, kind) {
  let tail = list.unlisted;
  if (tail === undefined) list.unlisted = tail = { kinds: new Uint8Array(64), size: 0 };
  else if (tail.size === tail.kinds.length) {
    const grown = new Uint8Array(tail.size * 2);
    grown.set(tail.kinds);
    tail.kinds = grown;
  }
  tail.kinds[tail.size++] = kind;
}
function pushError(list, error) {
  if (list.unlisted === undefined && list.length < MAX_LISTED_ERRORS) list.push(error);
  else addKind(list, kindOf(error));
}
function appendErrors(list, more) {
  for (const error of more) pushError(list, error);
  const tail = more.unlisted;
  if (tail !== undefined) for (let i = 0; i < tail.size; i++) addKind(list, tail.kinds[i]);
  return list;
}
function countOf(list) {
  return list.length + (list.unlisted === undefined ? 0 : list.unlisted.size);
}
function truncate(list, count) {
  if (count <= list.length) {
    list.length = count;
    list.unlisted = undefined;
  } else list.unlisted.size = count - list.length;
}`;

const HEADER =
  '// Generated from openapi/openapi.yaml by openapi/compile-validators.ts (npm run openapi:generate). Do not edit.';

/** The generated files: the spec as JSON, and the validators module with its declaration. */
export function generatedValidators(yamlText: string): { spec: string; module: string; declaration: string } {
  const spec = parse(yamlText) as JsonObject;
  const sha256 = createHash('sha256').update(yamlText).digest('hex');
  const operations = listOperations(spec);
  const schemas = ((spec.components as JsonObject)?.schemas ?? {}) as JsonObject;
  const responses = createAjv(spec, false);
  const requests = createAjv(spec, true);
  // Each validator is compiled under an id of its own, and exported under a short name.
  const responseIds: Record<string, string | null> = {};
  const requestIds: Record<string, string> = {};
  let count = 0;
  for (const op of operations) {
    for (const [status, response] of Object.entries(op.responses)) {
      for (const [mediaType, content] of Object.entries(response.content)) {
        const key = responseValidatorKey(op.operationId, status, mediaType);
        if (!content.schema) {
          responseIds[key] = null;
          continue;
        }
        const id = `r${count++}`;
        responses.addSchema({ ...(prepareSchema(content.schema, schemas) as JsonObject), $id: id });
        responseIds[key] = id;
      }
    }
    const id = `q${count++}`;
    requests.addSchema({ ...(prepareSchema(requestSchema(op), schemas) as JsonObject), $id: id });
    requestIds[op.operationId] = id;
  }
  // Two ajv instances (the request one coerces wire strings): two modules, their names kept apart.
  const responseCode = standalone.default(
    responses,
    Object.fromEntries(Object.values(responseIds).flatMap((id) => (id ? [[id, id]] : []))),
  );
  const requestCode = standalone.default(requests, Object.fromEntries(Object.values(requestIds).map((id) => [id, id])));
  const responsesTable = Object.entries(responseIds)
    .map(([key, id]) => `  ${JSON.stringify(key)}: ${id === null ? 'null' : `responses.${id}`},`)
    .join('\n');
  const requestsTable = Object.entries(requestIds)
    .map(([key, id]) => `  ${JSON.stringify(key)}: requests.${id},`)
    .join('\n');
  const module = `${HEADER}
// @ts-nocheck
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
${ERROR_HELPERS}
/** The SHA-256 of the openapi.yaml these validators were compiled from. */
export const SPEC_SHA256 = ${JSON.stringify(sha256)};
const responses = (() => {
${exportsToObject(boundedErrors(responseCode))}
})();
const requests = (() => {
${exportsToObject(boundedErrors(requestCode))}
})();
/** Response body validators by \`operationId status mediaType\`; null where the spec documents no schema. */
export const RESPONSE_VALIDATORS = {
${responsesTable}
};
/** Request validators (query, pathParams, form; wire strings coerced) by operationId. */
export const REQUEST_VALIDATORS = {
${requestsTable}
};
`;
  const declaration = `${HEADER}
import type { ValidateFunction } from 'ajv';
/** The SHA-256 of the openapi.yaml these validators were compiled from. */
export declare const SPEC_SHA256: string;
/** Response body validators by \`operationId status mediaType\`; null where the spec documents no schema. */
export declare const RESPONSE_VALIDATORS: Record<string, ValidateFunction | null>;
/** Request validators (query, pathParams, form; wire strings coerced) by operationId. */
export declare const REQUEST_VALIDATORS: Record<string, ValidateFunction>;
`;
  return { spec: `${JSON.stringify({ sha256, spec })}\n`, module, declaration };
}

/** Turns the `export const NAME = ...;` lines of ajv's ESM output into a function body that returns them. */
function exportsToObject(code: string): string {
  const names: string[] = [];
  const body = code.replace(/export const (\w+) = /g, (_match, name: string) => {
    names.push(name);
    return `const ${name} = `;
  });
  return `${body}\nreturn { ${names.join(', ')} };`;
}

/** Where the generated files go. */
export const GENERATED_FILES = {
  spec: GENERATED_SPEC_PATH,
  module: fileURLToPath(new URL('./generated/validators.js', import.meta.url)),
  declaration: fileURLToPath(new URL('./generated/validators.d.ts', import.meta.url)),
} as const;

/** Writes the generated files of the spec text to the given paths. */
export function writeGeneratedValidators(yamlText: string, files: Record<keyof typeof GENERATED_FILES, string>): void {
  const generated = generatedValidators(yamlText);
  writeFileSync(files.spec, generated.spec);
  writeFileSync(files.module, generated.module);
  writeFileSync(files.declaration, generated.declaration);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeGeneratedValidators(readFileSync(SPEC_PATH, 'utf8'), GENERATED_FILES);
  console.log('openapi:generate: openapi/generated/openapi.json, validators.js and validators.d.ts written');
}
