import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { deref, type JsonObject, loadSpec, OPERATIONS } from './spec.ts';
import { validateRequest, validateResponse } from './validator.ts';

const doc = loadSpec();

/** A documented response example with the operation, status and media type it belongs to. */
interface ExampleCase {
  name: string;
  operationId: string;
  status: number;
  mediaType: string;
  schema: JsonObject;
  value: unknown;
}

function responseExamples(): ExampleCase[] {
  const cases: ExampleCase[] = [];
  for (const op of OPERATIONS) {
    for (const [status, response] of Object.entries(op.responses)) {
      for (const [mediaType, media] of Object.entries(response.content)) {
        const named = Object.entries(media.examples ?? {}).map(([key, example]) => ({
          key,
          value: deref<JsonObject>(doc, example).value,
        }));
        if ('example' in media) named.push({ key: 'example', value: media.example });
        for (const { key, value } of named) {
          cases.push({
            name: `${op.operationId} ${status} ${mediaType} (${key})`,
            operationId: op.operationId,
            status: Number(status),
            mediaType,
            schema: media.schema ?? {},
            value,
          });
        }
      }
    }
  }
  return cases;
}

/** The schema a value must match after following $ref, allOf and the _type tag of a union. */
function effective(schema: unknown, value: unknown): JsonObject {
  const node = deref<JsonObject>(doc, schema ?? {});
  if (Array.isArray(node.oneOf) && node['x-kgate-discriminator'] && value && typeof value === 'object') {
    const tag = node['x-kgate-discriminator'] as string;
    const branches = (node.oneOf as unknown[]).map((b) => deref<JsonObject>(doc, b));
    const chosen =
      branches.find((b) => ((b.properties as JsonObject)?.[tag] as JsonObject)?.const === (value as JsonObject)[tag]) ??
      branches.find((b) => ((b.properties as JsonObject)?.[tag] as JsonObject)?.const === undefined);
    return effective(chosen, value);
  }
  if (!Array.isArray(node.allOf)) return node;
  const merged: JsonObject = { ...node, properties: { ...((node.properties as JsonObject) ?? {}) } };
  const required = new Set<string>((node.required as string[]) ?? []);
  for (const part of (node.allOf as unknown[]).map((p) => effective(p, value))) {
    merged.type ??= part.type;
    for (const name of (part.required as string[]) ?? []) required.add(name);
    for (const [name, sub] of Object.entries((part.properties as JsonObject) ?? {})) {
      const props = merged.properties as JsonObject;
      props[name] = props[name] ? { allOf: [props[name], sub] } : sub;
    }
  }
  merged.required = [...required];
  return merged;
}

/** The JSON type names a schema allows, after resolution. */
function typesOf(schema: JsonObject): string[] {
  if (Array.isArray(schema.allOf)) return (schema.allOf as unknown[]).flatMap((p) => typesOf(effective(p, undefined)));
  if (schema.const !== undefined) return [typeof schema.const === 'number' ? 'number' : typeof schema.const];
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.type)) return schema.type as string[];
  return [];
}

/** A value of a JSON type none of the allowed types accepts. */
function wrongTypedValue(allowed: string[]): unknown {
  if (!allowed.includes('object')) return { wrong: true };
  return 'wrong';
}

interface Mutant {
  description: string;
  value: unknown;
  pointer: string;
  /** What the validator must report at the pointer: an error, or a warning (an expected property removed). */
  want: 'error' | 'warning';
}

/** The x-kgate-level of a property schema, looking through the allOf that effective() builds. */
function levelOf(property: unknown): unknown {
  const node = property as JsonObject;
  if (node['x-kgate-level'] !== undefined) return node['x-kgate-level'];
  return Array.isArray(node.allOf) ? node.allOf.map(levelOf).find((level) => level !== undefined) : undefined;
}

function setAt(
  root: unknown,
  path: (string | number)[],
  mutate: (parent: JsonObject | unknown[], key: string | number) => void,
) {
  const copy = structuredClone(root);
  let node: unknown = copy;
  for (const key of path.slice(0, -1)) node = (node as JsonObject)[key as string];
  mutate(node as JsonObject, path[path.length - 1] as string);
  return copy;
}

/**
 * Breaks an example in every way its schema forbids: each required property removed, each typed
 * value retyped, each bounded number pushed out of range (errors); and removes each expected
 * property, which must give a warning instead.
 */
function mutants(root: unknown, schema: unknown): Mutant[] {
  const out: Mutant[] = [];
  const walk = (value: unknown, rawSchema: unknown, path: (string | number)[]) => {
    const node = effective(rawSchema, value);
    const pointer = `/${path.join('/')}`;
    const types = typesOf(node);
    const replace = (description: string, replacement: unknown) => {
      out.push({
        description,
        value:
          path.length === 0
            ? replacement
            : setAt(root, path, (parent, key) => {
                (parent as JsonObject)[key] = replacement;
              }),
        pointer,
        want: 'error',
      });
    };
    if (types.length > 0) replace(`${pointer} retyped`, wrongTypedValue(types));
    if (typeof node.maximum === 'number') replace(`${pointer} above its maximum`, node.maximum + 1);
    if (typeof node.minimum === 'number') replace(`${pointer} below its minimum`, node.minimum - 1);
    if (Array.isArray(value)) {
      value.forEach((item, i) => {
        walk(item, node.items, [...path, i]);
      });
    } else if (value && typeof value === 'object') {
      const properties = (node.properties as JsonObject | undefined) ?? {};
      const expected = Object.keys(properties).filter((name) => levelOf(properties[name]) === 'expected');
      const removable = [
        ...((node.required as string[]) ?? []).map((name) => ({ name, want: 'error' as const })),
        ...expected.map((name) => ({ name, want: 'warning' as const })),
      ];
      for (const { name, want } of removable) {
        if (!(name in value)) continue;
        out.push({
          description: `${pointer === '/' ? '' : pointer}/${name} removed`,
          value: setAt(root, [...path, name], (parent, key) => {
            delete (parent as JsonObject)[key];
          }),
          pointer: `${path.length ? pointer : ''}/${name}`,
          want,
        });
      }
      for (const [name, child] of Object.entries(value)) {
        const sub = (node.properties as JsonObject | undefined)?.[name];
        if (sub) walk(child, sub, [...path, name]);
      }
    }
  };
  walk(root, schema, []);
  return out;
}

const cases = responseExamples();

describe('response examples', () => {
  test('every operation has an example for every documented JSON response', () => {
    for (const op of OPERATIONS) {
      for (const [status, response] of Object.entries(op.responses)) {
        const json = response.content['application/json'];
        assert.ok(json, `${op.operationId} ${status} documents a JSON body`);
        assert.ok(
          cases.some((c) => c.operationId === op.operationId && c.status === Number(status)),
          `${op.operationId} ${status} has an example`,
        );
      }
    }
  });

  for (const example of cases) {
    test(`${example.name} validates against its own schema`, () => {
      const result = validateResponse(example.operationId, example.status, example.mediaType, example.value);
      assert.deepEqual(result.errors, [], 'no errors');
      assert.deepEqual(result.warnings, [], 'no warnings: examples carry every expected property');
      assert.equal(result.valid, true, 'valid');
    });

    const broken = mutants(example.value, example.schema);
    if (broken.length === 0) continue; // a permissive body (shape not shown by the interface) has nothing to break
    const rejected = broken.filter((mutant) => mutant.want === 'error');
    const warned = broken.filter((mutant) => mutant.want === 'warning');
    test(`${example.name}: ${rejected.length} mutated examples are rejected at the right pointer`, () => {
      for (const mutant of rejected) {
        const result = validateResponse(example.operationId, example.status, example.mediaType, mutant.value);
        assert.equal(result.valid, false, `${mutant.description} must be rejected`);
        assert.ok(
          result.errors.some((e) => e.pointer === mutant.pointer),
          `${mutant.description}: expected an error at ${mutant.pointer}, got ${result.errors.map((e) => e.pointer).join(', ')}`,
        );
      }
    });
    if (warned.length === 0) continue;
    test(`${example.name}: ${warned.length} expected properties removed give a warning, not an error`, () => {
      for (const mutant of warned) {
        const result = validateResponse(example.operationId, example.status, example.mediaType, mutant.value);
        assert.deepEqual(result.errors, [], `${mutant.description}: no error`);
        assert.equal(result.valid, true, `${mutant.description} stays valid`);
        assert.deepEqual(
          result.warnings.map((w) => w.pointer),
          [mutant.pointer],
          `${mutant.description}: one warning, at ${mutant.pointer}`,
        );
      }
    });
  }

  test('mutations cover every strictly shaped example', () => {
    const strict = cases.filter((c) => mutants(c.value, c.schema).length > 0);
    const permissive = cases.filter((c) => mutants(c.value, c.schema).length === 0).map((c) => c.name);
    assert.ok(strict.length >= 20, `only ${strict.length} strict examples`);
    for (const name of permissive)
      assert.match(
        name,
        /similarity(Get|Post) (400|401|403|408|500)|(hotEvents|relatedEvents|eventDocuments) (401|403)/,
      );
  });
});

describe('parameter and form examples', () => {
  for (const op of OPERATIONS) {
    const raw = ((doc.paths as JsonObject)[op.path] as JsonObject)[op.method] as JsonObject;
    const params = ((raw.parameters ?? []) as unknown[]).map((p) => deref<JsonObject>(doc, p));
    const query: Record<string, string> = {};
    const pathParams: Record<string, string> = {};
    for (const param of params) {
      if (param.example === undefined) continue;
      (param.in === 'path' ? pathParams : query)[param.name as string] = String(param.example);
    }
    const body = raw.requestBody ? deref<JsonObject>(doc, raw.requestBody) : undefined;
    const formExample = (body?.content as JsonObject | undefined)?.['application/x-www-form-urlencoded'] as
      | JsonObject
      | undefined;
    const form = Object.fromEntries(
      Object.entries((formExample?.example as JsonObject) ?? {}).map(([k, v]) => [k, String(v)]),
    );
    test(`${op.operationId}: examples of parameters are valid requests`, () => {
      for (const param of op.parameters.filter((p) => p.required && p.in === 'query' && !(p.name in query))) {
        query[param.name] =
          param.schema.format === 'uri' ? 'https://example.org/' : param.schema.format === 'date' ? '2026-11-01' : 'x';
      }
      const result = validateRequest(op.operationId, { query, pathParams, form });
      assert.deepEqual(result.errors, []);
    });
  }
});
