import {
  branchTags,
  closedValues,
  declaredTypes,
  deref,
  discriminatorProperty,
  flattenAllOf,
  isObject,
  jsonTypeOf,
  knownValues,
  levelOf,
  type Node,
  requiredSet,
  sample,
  typeAllowed,
} from './schema.ts';

/** What kind of difference between a response and the spec a finding reports. */
export type FindingKind =
  | 'undocumented-property'
  | 'missing-property'
  | 'missing-expected-property'
  | 'type-changed'
  | 'format-changed'
  | 'constraint-changed'
  | 'new-enum-value'
  | 'new-type-value'
  | 'undocumented-status'
  | 'undocumented-media-type'
  | 'unparseable-body'
  | 'undocumented-header'
  | 'exponent-number'
  | 'echo-differs'
  | 'ranking-id-by-fragment';

/** Every finding kind with the one-line meaning the reports print. */
export const FINDING_KINDS: Record<FindingKind, string> = {
  'undocumented-property': 'a property the spec does not document (objects are open, so this is drift)',
  'missing-property': 'a property the spec marks required is absent',
  'missing-expected-property':
    'a property the spec documents at level expected (x-kgate-level: expected, not required) is absent',
  'type-changed': 'a value has a JSON type the spec does not allow',
  'format-changed': 'a string does not have the format the spec declares (date-time, date, uri, uuid...)',
  'constraint-changed': 'a value breaks a declared limit (minimum, maximum, length, pattern, items)',
  'new-enum-value': 'a value outside a closed enum/const or outside an open x-kgate-known-values list',
  'new-type-value': 'a `_type` (discriminator) value no branch of the spec names',
  'undocumented-status': 'a status code the operation does not document',
  'undocumented-media-type': 'a response media type the status does not document',
  'unparseable-body': 'a body documented as JSON that does not parse',
  'undocumented-header':
    'a response header that is neither generic HTTP nor documented for the operation (once per name and operation)',
  'exponent-number':
    "a number written in exponent form in the raw body (2.266e-007); the spec's samples write plain decimals",
  'echo-differs':
    'an echoed request value (interpret query, evaluate/calchistogram expr, answer search q) differs from the one sent',
  'ranking-id-by-fragment':
    "a ranking item's value.id matches an answer or result id only by its fragment (#Facts), not exactly",
};

/** One difference found while walking an instance alongside its schema. */
export interface WalkIssue {
  kind: FindingKind;
  /** JSON path with array indexes, e.g. `$.entities[3].logprob`. */
  path: string;
  /** The same path with indexes replaced by `[]`, used for fingerprints. */
  normalizedPath: string;
  /** One line: what was found against what the spec says. */
  message: string;
  /** A short rendering of the value found. */
  sample?: string;
  /** For value findings, the value itself: it is what is new, so it is part of the identity. */
  identity?: string;
}

const FORMATS: Record<string, (value: string) => boolean> = {
  'date-time': (value) =>
    /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(value) &&
    !Number.isNaN(Date.parse(value)),
  date: (value) => {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
  },
  uri: (value) => {
    try {
      return /^[a-z][a-z0-9+.-]*:/i.test(value) && Boolean(new URL(value));
    } catch {
      return false;
    }
  },
  uuid: (value) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value),
  email: (value) => /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(value),
};

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const MAX_DEPTH = 64;

/**
 * Walks a JSON instance alongside its schema (resolving $ref, merging allOf, choosing oneOf/anyOf
 * branches by their `_type` tag, descending arrays) and lists every difference: undocumented and
 * missing properties, type, format and limit changes, and values outside closed or open value sets.
 * Unlike a validator it reports properties the (open) spec does not document.
 */
export function walkInstance(doc: unknown, schema: unknown, instance: unknown): WalkIssue[] {
  const issues: WalkIssue[] = [];
  walk(doc, schema, instance, '$', '$', issues, 0);
  return issues;
}

/** Replaces array indexes in a JSON path by `[]`. */
export function normalizePath(path: string): string {
  return path.replace(/\[\d+\]/g, '[]');
}

/** `path` extended by one property name: `$.a.b`, or `$.a["x-y"]` when the name is not an identifier. */
export function childPath(path: string, key: string): string {
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function walk(
  doc: unknown,
  raw: unknown,
  value: unknown,
  path: string,
  norm: string,
  issues: WalkIssue[],
  depth: number,
) {
  const resolved = deref(doc, raw);
  if (!isObject(resolved) || depth > MAX_DEPTH) return;
  const schema = flattenAllOf(doc, resolved);
  const issue = (kind: FindingKind, message: string, extra: Partial<WalkIssue> = {}) =>
    issues.push({ kind, path, normalizedPath: norm, message, ...extra });

  const variants = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  if (variants) {
    const { oneOf: _one, anyOf: _any, ...rest } = schema;
    const branch = chooseBranch(doc, schema, variants, value, path, norm, issues, depth);
    if (branch === undefined) return;
    const combined = Object.keys(rest).some((key) => key !== 'description' && !key.startsWith('x-'))
      ? { allOf: [rest, branch] }
      : branch;
    walk(doc, combined, value, path, norm, issues, depth + 1);
    return;
  }

  const actual = jsonTypeOf(value);
  const types = declaredTypes(schema);
  if (types && !typeAllowed(types, actual)) {
    issue('type-changed', `spec says ${[...types].join('|')}, got ${actual}`, { sample: sample(value) });
    return;
  }

  const lastKey = /\.([A-Za-z_$][\w$]*)$/.exec(path)?.[1];
  const closed = closedValues(schema);
  if (closed && !closed.some((item) => item === value || JSON.stringify(item) === JSON.stringify(value))) {
    const kind = lastKey === '_type' ? 'new-type-value' : 'new-enum-value';
    issue(kind, `value ${sample(value, 60)} is not among ${sample(closed, 100)}`, {
      sample: sample(value),
      identity: sample(value, 64),
    });
  }
  const known = knownValues(schema);
  if (known && !known.includes(value as never)) {
    issue('new-enum-value', `value ${sample(value, 60)} is not among the known values ${sample(known, 100)}`, {
      sample: sample(value),
      identity: sample(value, 64),
    });
  }

  if (typeof value === 'string') checkString(schema, value, issue);
  if (typeof value === 'number') checkNumber(schema, value, issue);

  if (Array.isArray(value)) {
    checkCount(schema, 'minItems', 'maxItems', value.length, 'items', issue);
    if (schema.items !== undefined) {
      value.forEach((item, index) => {
        walk(doc, schema.items, item, `${path}[${index}]`, `${norm}[]`, issues, depth + 1);
      });
    }
    return;
  }

  if (actual !== 'object') return;
  const object = value as Record<string, unknown>;
  const properties = isObject(schema.properties) ? schema.properties : {};
  const describesObject = Boolean(types?.has('object')) || isObject(schema.properties);
  const required = requiredSet(schema);
  for (const name of required) {
    if (!(name in object)) {
      issues.push({
        kind: 'missing-property',
        path: childPath(path, name),
        normalizedPath: childPath(norm, name),
        message: 'required property is absent',
      });
    }
  }
  for (const [name, property] of Object.entries(properties)) {
    if (name in object || required.has(name) || levelOf(doc, property) !== 'expected') continue;
    issues.push({
      kind: 'missing-expected-property',
      path: childPath(path, name),
      normalizedPath: childPath(norm, name),
      message: 'expected property is absent (the spec documents it as expected, not required)',
    });
  }
  const patterns = isObject(schema.patternProperties) ? Object.entries(schema.patternProperties) : [];
  for (const [key, child] of Object.entries(object)) {
    const at = childPath(path, key);
    const atNorm = childPath(norm, key);
    if (key in properties) {
      walk(doc, properties[key], child, at, atNorm, issues, depth + 1);
      continue;
    }
    const pattern = patterns.find(([source]) => safeTest(source, key));
    if (pattern) {
      walk(doc, pattern[1], child, at, atNorm, issues, depth + 1);
    } else if (isObject(schema.additionalProperties)) {
      walk(doc, schema.additionalProperties, child, at, childPath(norm, '*'), issues, depth + 1);
    } else if (describesObject && schema.additionalProperties !== true) {
      issues.push({
        kind: 'undocumented-property',
        path: at,
        normalizedPath: atNorm,
        message: `property not in the spec (sample ${sample(child, 60)})`,
        sample: sample(child),
      });
    }
  }
}

/** Picks the oneOf/anyOf branch an instance belongs to; records a new-type-value when its tag is unknown. */
function chooseBranch(
  doc: unknown,
  schema: Node,
  branches: unknown[],
  value: unknown,
  path: string,
  norm: string,
  issues: WalkIssue[],
  depth: number,
): unknown {
  const property = discriminatorProperty(doc, schema, branches);
  if (property && isObject(value) && property in value) {
    const tag = value[property];
    const tagged = branches.map((branch) => ({ branch, tags: branchTags(doc, branch, property) }));
    const match = tagged.find(({ tags }) => tags.some((item) => item === tag));
    if (match) return match.branch;
    issues.push({
      kind: 'new-type-value',
      path: childPath(path, property),
      normalizedPath: childPath(norm, property),
      message: `${property} ${sample(tag, 60)} is none of the documented ${sample(
        tagged.flatMap(({ tags }) => tags),
        120,
      )}`,
      sample: sample(tag),
      identity: sample(tag, 64),
    });
    // A catch-all branch (no pinned tag) still describes the rest of the object.
    return tagged.find(({ tags }) => tags.length === 0)?.branch;
  }
  // No tag: the branch with the fewest differences is the one the instance meant.
  let best: { branch: unknown; count: number } | undefined;
  for (const branch of branches) {
    const trial: WalkIssue[] = [];
    walk(doc, branch, value, path, norm, trial, depth + 1);
    if (!best || trial.length < best.count) best = { branch, count: trial.length };
    if (trial.length === 0) break;
  }
  return best?.branch;
}

type IssueSink = (kind: FindingKind, message: string, extra?: Partial<WalkIssue>) => void;

function checkString(schema: Node, value: string, issue: IssueSink): void {
  const format = typeof schema.format === 'string' ? schema.format : undefined;
  const check = format ? FORMATS[format] : undefined;
  if (format && check && !check(value)) {
    issue('format-changed', `spec says format ${format}, got ${sample(value, 60)}`, { sample: sample(value) });
  }
  if (typeof schema.pattern === 'string' && !safeTest(schema.pattern, value)) {
    issue('constraint-changed', `does not match pattern ${schema.pattern}: ${sample(value, 60)}`, {
      sample: sample(value),
    });
  }
  checkCount(schema, 'minLength', 'maxLength', [...value].length, 'characters', issue);
}

function checkNumber(schema: Node, value: number, issue: IssueSink): void {
  const bound = (name: string) => (typeof schema[name] === 'number' ? (schema[name] as number) : undefined);
  const broken: string[] = [];
  const minimum = bound('minimum');
  const maximum = bound('maximum');
  const exclusiveMinimum = bound('exclusiveMinimum');
  const exclusiveMaximum = bound('exclusiveMaximum');
  if (minimum !== undefined && value < minimum) broken.push(`minimum ${minimum}`);
  if (maximum !== undefined && value > maximum) broken.push(`maximum ${maximum}`);
  if (exclusiveMinimum !== undefined && value <= exclusiveMinimum) broken.push(`exclusiveMinimum ${exclusiveMinimum}`);
  if (exclusiveMaximum !== undefined && value >= exclusiveMaximum) broken.push(`exclusiveMaximum ${exclusiveMaximum}`);
  if (broken.length > 0) issue('constraint-changed', `${value} breaks ${broken.join(', ')}`, { sample: String(value) });
}

function checkCount(schema: Node, minName: string, maxName: string, count: number, unit: string, issue: IssueSink) {
  const min = typeof schema[minName] === 'number' ? (schema[minName] as number) : undefined;
  const max = typeof schema[maxName] === 'number' ? (schema[maxName] as number) : undefined;
  if (min !== undefined && count < min) issue('constraint-changed', `${count} ${unit}, ${minName} is ${min}`);
  if (max !== undefined && count > max) issue('constraint-changed', `${count} ${unit}, ${maxName} is ${max}`);
}

function safeTest(source: string, value: string): boolean {
  try {
    return new RegExp(source, 'u').test(value);
  } catch {
    return true;
  }
}
