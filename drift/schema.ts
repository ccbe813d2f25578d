// Small helpers over OpenAPI 3.1 schema objects shared by the live walker and the spec diff.

/** A JSON-like object as parsed from YAML or JSON. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** An OpenAPI schema object (or any spec node), loosely typed. */
export type Node = Record<string, unknown>;

/** JSON types as JSON Schema names them; 'integer' is a subtype of 'number'. */
export type JsonType = 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object';

/** Vendor extensions that mark a string's listed values as open: values outside them are drift, not errors. */
export const OPEN_VALUE_EXTENSIONS = ['x-kgate-known-values', 'x-extensible-enum', 'x-known-values'] as const;

/** True for a plain (non-array) object. */
export function isObject(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Follows a local `$ref` chain ('#/components/...') within the document; returns the target or the input. */
export function deref(doc: unknown, node: unknown, seen = new Set<string>()): unknown {
  if (!isObject(node) || typeof node.$ref !== 'string') return node;
  const ref = node.$ref;
  if (!ref.startsWith('#') || seen.has(ref)) return node;
  seen.add(ref);
  let target: unknown = doc;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    target = isObject(target) || Array.isArray(target) ? (target as Record<string, unknown>)[key] : undefined;
  }
  if (target === undefined) return node;
  // Sibling keywords beside $ref (allowed in 3.1) override the target's.
  const { $ref: _ignored, ...siblings } = node;
  const resolved = deref(doc, target, seen);
  return Object.keys(siblings).length > 0 && isObject(resolved) ? { ...resolved, ...siblings } : resolved;
}

/** The last segment of a `$ref`, used to name a schema branch; undefined when not a ref. */
export function refName(node: unknown): string | undefined {
  return isObject(node) && typeof node.$ref === 'string' ? node.$ref.split('/').pop() : undefined;
}

/** The JSON type of a value, distinguishing integers. */
export function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string') return 'string';
  return 'object';
}

/** The declared types of a schema (3.1 `type` arrays, 3.0 `nullable`); undefined when the schema leaves type open. */
export function declaredTypes(schema: Node): Set<JsonType> | undefined {
  const raw = schema.type;
  let types: string[] | undefined;
  if (typeof raw === 'string') types = [raw];
  else if (Array.isArray(raw)) types = raw.filter((item): item is string => typeof item === 'string');
  else if ('const' in schema) types = [jsonTypeOf(schema.const)];
  else if (Array.isArray(schema.enum) && schema.enum.length > 0) types = [...new Set(schema.enum.map(jsonTypeOf))];
  if (!types) return undefined;
  const set = new Set(types as JsonType[]);
  if (schema.nullable === true) set.add('null');
  return set;
}

/** True when a value of JSON type `actual` is allowed by the declared type set. */
export function typeAllowed(types: Set<JsonType>, actual: JsonType): boolean {
  return types.has(actual) || (actual === 'integer' && types.has('number'));
}

/** True when every type in `inner` is admitted by `outer` ('integer' fits in 'number'). */
export function typesWithin(inner: Set<JsonType>, outer: Set<JsonType>): boolean {
  return [...inner].every((type) => typeAllowed(outer, type));
}

/** The open list of known values of a schema (from a vendor extension), if it declares one. */
export function knownValues(schema: Node): unknown[] | undefined {
  for (const name of OPEN_VALUE_EXTENSIONS) {
    const value = schema[name];
    if (Array.isArray(value)) return value;
  }
  return undefined;
}

/** The closed list of allowed values (`enum`, or `const` as a one-value list), if any. */
export function closedValues(schema: Node): unknown[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum;
  if ('const' in schema) return [schema.const];
  return undefined;
}

/** The `_type` (or discriminator property) values a oneOf branch stands for; empty when none is pinned. */
export function branchTags(doc: unknown, branch: unknown, property: string): unknown[] {
  const schema = deref(doc, branch);
  if (!isObject(schema)) return [];
  const properties = isObject(schema.properties) ? schema.properties : {};
  const tag = deref(doc, properties[property]);
  const fromAllOf = Array.isArray(schema.allOf) ? schema.allOf.flatMap((part) => branchTags(doc, part, property)) : [];
  if (!isObject(tag)) return fromAllOf;
  return [...(closedValues(tag) ?? []), ...fromAllOf];
}

/**
 * The property a oneOf/anyOf is discriminated by: `discriminator.propertyName`, the spec's
 * `x-kgate-discriminator`, else '_type' when some branch pins it.
 */
export function discriminatorProperty(doc: unknown, schema: Node, branches: unknown[]): string | undefined {
  const discriminator = schema.discriminator;
  if (isObject(discriminator) && typeof discriminator.propertyName === 'string') return discriminator.propertyName;
  if (typeof schema['x-kgate-discriminator'] === 'string') return schema['x-kgate-discriminator'];
  return branches.some((branch) => branchTags(doc, branch, '_type').length > 0) ? '_type' : undefined;
}

/** The `required` names of a schema. */
export function requiredSet(schema: Node): Set<string> {
  return new Set(
    Array.isArray(schema.required) ? schema.required.filter((n): n is string => typeof n === 'string') : [],
  );
}

/**
 * Merges `allOf` parts into one view so they read like one schema: properties are united (a
 * property described by several parts becomes the allOf of those descriptions, merged in turn),
 * `required` lists are united, and other keywords keep their first value.
 */
export function flattenAllOf(doc: unknown, schema: Node, depth = 0): Node {
  if (!Array.isArray(schema.allOf) || depth > 16) return schema;
  const { allOf, ...own } = schema;
  const parts = [own, ...allOf.map((part) => deref(doc, part))]
    .filter(isObject)
    .map((part) => flattenAllOf(doc, part, depth + 1));
  const merged: Node = {};
  const properties: Record<string, unknown[]> = {};
  const required = new Set<string>();
  for (const part of parts) {
    for (const [key, value] of Object.entries(part)) {
      if (key === 'properties' && isObject(value)) {
        for (const [name, property] of Object.entries(value)) {
          properties[name] = [...(properties[name] ?? []), property];
        }
      } else if (key !== 'required' && !(key in merged)) merged[key] = value;
    }
    for (const name of requiredSet(part)) required.add(name);
  }
  if (Object.keys(properties).length > 0) {
    merged.properties = Object.fromEntries(
      Object.entries(properties).map(([name, list]) => [
        name,
        list.length === 1 ? list[0] : flattenAllOf(doc, { allOf: list }, depth + 1),
      ]),
    );
  }
  if (required.size > 0) merged.required = [...required];
  return merged;
}

/**
 * The `x-kgate-level` of a property schema (`required`, `expected` or `optional`), read on the
 * schema itself, else on its `$ref` target and `allOf` parts; undefined when none says.
 */
export function levelOf(doc: unknown, node: unknown): string | undefined {
  if (!isObject(node)) return undefined;
  if (typeof node['x-kgate-level'] === 'string') return node['x-kgate-level'];
  const resolved = deref(doc, node);
  if (!isObject(resolved)) return undefined;
  const flat = flattenAllOf(doc, resolved);
  return typeof flat['x-kgate-level'] === 'string' ? flat['x-kgate-level'] : undefined;
}

/** Renders a JSON value as a short sample for a report line. */
export function sample(value: unknown, max = 80): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
