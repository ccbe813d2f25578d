import {
  branchTags,
  closedValues,
  declaredTypes,
  deref,
  discriminatorProperty,
  flattenAllOf,
  isObject,
  type JsonType,
  knownValues,
  type Node,
  refName,
  requiredSet,
  sample,
  typesWithin,
} from './schema.ts';

/** Which way data flows through a schema: clients write requests and read responses. */
export type Direction = 'request' | 'response';

/** One difference between two specs, judged from the point of view of an existing client. */
export interface SpecChange {
  /** Stable rule id, e.g. `parameter-became-required`. */
  rule: string;
  /** True when a client written against the old spec can fail against the new one. */
  breaking: boolean;
  /** Operation label (`GET /academic/v1.0/evaluate`), absent for document-level changes. */
  operation?: string;
  /** Where in the operation: `query parameter count`, `response 200 application/json $.entities[].prob`. */
  location: string;
  /** One line saying what changed and why it is (not) breaking. */
  message: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;
const LOWER_BOUNDS = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'] as const;
const UPPER_BOUNDS = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'] as const;

interface Operation {
  label: string;
  node: Node;
  parameters: Map<string, Node>;
  /** Effective security requirement alternatives, each a sorted list of scheme names. */
  security: string[][];
}

/**
 * Compares two parsed OpenAPI documents and lists every difference a client can notice.
 * Requests are judged by narrowing (the client sends what the old spec allowed), responses by
 * widening (the client reads only what the old spec promised).
 */
export function diffSpecs(oldDoc: unknown, newDoc: unknown): SpecChange[] {
  const differ = new SpecDiffer(oldDoc, newDoc);
  differ.run();
  return differ.changes;
}

/** Renders one change as the single line the CLI prints. */
export function formatChange(change: SpecChange): string {
  const where = change.operation ? `${change.operation} ${change.location}` : change.location;
  return `${change.breaking ? 'BREAKING' : 'ok      '} ${change.rule}: ${where}: ${change.message}`;
}

class SpecDiffer {
  readonly changes: SpecChange[] = [];
  private operation: string | undefined;
  private readonly visiting = new Set<string>();

  constructor(
    private readonly oldDoc: unknown,
    private readonly newDoc: unknown,
  ) {}

  run(): void {
    const before = collectOperations(this.oldDoc);
    const after = collectOperations(this.newDoc);
    for (const [key, old] of before) {
      const next = after.get(key);
      this.operation = (next ?? old).label;
      if (!next) this.add('operation-removed', true, 'operation', 'operation removed; clients calling it get 404/405');
      else this.compareOperation(old, next);
    }
    for (const [key, next] of after) {
      if (before.has(key)) continue;
      this.operation = next.label;
      this.add('operation-added', false, 'operation', 'new operation; existing clients do not call it');
    }
    this.operation = undefined;
  }

  private add(rule: string, breaking: boolean, location: string, message: string): void {
    this.changes.push({ rule, breaking, operation: this.operation, location, message });
  }

  private compareOperation(old: Operation, next: Operation): void {
    for (const [key, oldParam] of old.parameters) {
      const newParam = next.parameters.get(key);
      const where = `${oldParam.in} parameter ${oldParam.name}`;
      if (!newParam) {
        this.add('parameter-removed', true, where, 'parameter removed; clients sending it may be rejected');
        continue;
      }
      const oldDefault = deref(this.oldDoc, oldParam.schema);
      const newDefault = deref(this.newDoc, newParam.schema);
      if (isObject(oldDefault) && isObject(newDefault) && sample(oldDefault.default) !== sample(newDefault.default)) {
        this.add(
          'default-changed',
          false,
          where,
          `default ${sample(oldDefault.default, 40)} -> ${sample(newDefault.default, 40)} (clients omitting it get the new behaviour)`,
        );
      }
      if (oldParam.required !== true && newParam.required === true) {
        this.add('parameter-became-required', true, where, 'optional parameter became required');
      } else if (oldParam.required === true && newParam.required !== true) {
        this.add('parameter-became-optional', false, where, 'required parameter became optional');
      }
      this.compareSchema(
        deref(this.oldDoc, oldParam.schema),
        deref(this.newDoc, newParam.schema),
        'request',
        where,
        '',
      );
    }
    for (const [key, newParam] of next.parameters) {
      if (old.parameters.has(key)) continue;
      const where = `${newParam.in} parameter ${newParam.name}`;
      if (newParam.required === true) {
        this.add('required-parameter-added', true, where, 'new required parameter; existing clients do not send it');
      } else this.add('parameter-added', false, where, 'new optional parameter');
    }
    this.compareSecurity(old.security, next.security);
    this.compareRequestBody(deref(this.oldDoc, old.node.requestBody), deref(this.newDoc, next.node.requestBody));
    this.compareResponses(deref(this.oldDoc, old.node.responses), deref(this.newDoc, next.node.responses));
  }

  /** Security requirements: a client holds the credentials the old spec asked for, and no others. */
  private compareSecurity(old: string[][], next: string[][]): void {
    const render = (alternatives: string[][]) =>
      alternatives.length === 0 ? 'none' : alternatives.map((names) => names.join('+') || 'anonymous').join(' or ');
    if (render(old) === render(next)) return;
    // Each old alternative must still be accepted as it is, or a client using it breaks.
    const accepted = (names: string[]) =>
      next.length === 0 || next.some((option) => option.every((name) => names.includes(name)));
    const breaking = (old.length === 0 ? [[]] : old).some((names) => !accepted(names));
    this.add(
      breaking ? 'security-narrowed' : 'security-widened',
      breaking,
      'security',
      `security ${render(old)} -> ${render(next)}${breaking ? ' (credentials existing clients send no longer suffice)' : ''}`,
    );
  }

  private compareHeaders(old: unknown, next: unknown, where: string): void {
    const headers = (node: unknown) => {
      const raw = isObject(node) && isObject(node.headers) ? node.headers : {};
      return new Map(Object.keys(raw).map((name) => [name.toLowerCase(), name]));
    };
    const before = headers(old);
    const after = headers(next);
    for (const [key, name] of before) {
      if (!after.has(key))
        this.add(
          'response-header-removed',
          true,
          `${where} header ${name}`,
          'documented response header removed; clients reading it break',
        );
    }
    for (const [key, name] of after) {
      if (!before.has(key)) this.add('response-header-added', false, `${where} header ${name}`, 'new response header');
    }
  }

  private compareRequestBody(old: unknown, next: unknown): void {
    const oldBody = isObject(old) ? old : undefined;
    const newBody = isObject(next) ? next : undefined;
    if (!oldBody && !newBody) return;
    if (!newBody) {
      this.add(
        'request-body-removed',
        true,
        'request body',
        'request body removed; clients sending one may be rejected',
      );
      return;
    }
    if (!oldBody) {
      if (newBody.required === true) {
        this.add('request-body-became-required', true, 'request body', 'new required request body');
      } else this.add('request-body-added', false, 'request body', 'new optional request body');
      return;
    }
    if (oldBody.required !== true && newBody.required === true) {
      this.add('request-body-became-required', true, 'request body', 'optional request body became required');
    }
    const oldContent = mediaTypes(oldBody.content);
    const newContent = mediaTypes(newBody.content);
    for (const [type, media] of oldContent) {
      const where = `request body ${type}`;
      const counterpart = newContent.get(type);
      if (!counterpart) {
        this.add('request-media-type-removed', true, where, 'request media type no longer accepted');
        continue;
      }
      this.compareSchema(
        deref(this.oldDoc, media.schema),
        deref(this.newDoc, counterpart.schema),
        'request',
        where,
        '$',
      );
    }
    for (const type of newContent.keys()) {
      if (!oldContent.has(type))
        this.add('request-media-type-added', false, `request body ${type}`, 'new accepted media type');
    }
  }

  private compareResponses(old: unknown, next: unknown): void {
    const oldResponses = isObject(old) ? old : {};
    const newResponses = isObject(next) ? next : {};
    for (const [status, oldResponse] of Object.entries(oldResponses)) {
      const where = `response ${status}`;
      if (!(status in newResponses)) {
        this.add(
          'response-status-removed',
          true,
          where,
          'documented status removed; clients handling it lose its shape',
        );
        continue;
      }
      this.compareHeaders(deref(this.oldDoc, oldResponse), deref(this.newDoc, newResponses[status]), where);
      const oldContent = mediaTypes(deref(this.oldDoc, oldResponse));
      const newContent = mediaTypes(deref(this.newDoc, newResponses[status]));
      for (const [type, media] of oldContent) {
        const counterpart = newContent.get(type);
        if (!counterpart) {
          this.add('response-media-type-removed', true, `${where} ${type}`, 'response media type no longer sent');
          continue;
        }
        this.compareSchema(
          deref(this.oldDoc, media.schema),
          deref(this.newDoc, counterpart.schema),
          'response',
          `${where} ${type}`,
          '$',
        );
      }
      for (const type of newContent.keys()) {
        if (!oldContent.has(type)) {
          this.add(
            'response-media-type-added',
            false,
            `${where} ${type}`,
            'new response media type (content negotiation)',
          );
        }
      }
    }
    for (const status of Object.keys(newResponses)) {
      if (status in oldResponses) continue;
      // A client coded against the documented success answer breaks on a new success status;
      // new error statuses land in the error handling every client already needs.
      const success = /^[23]/.test(status) || status === 'default';
      this.add(
        'response-status-added',
        success,
        `response ${status}`,
        success ? 'new success status; clients expect the documented one' : 'new error status',
      );
    }
  }

  /** Compares two schemas at `path` (a JSON path, '' for a parameter value). */
  private compareSchema(old: unknown, next: unknown, direction: Direction, where: string, path: string): void {
    if (!isObject(old) || !isObject(next)) return;
    const pairKey = `${direction}|${where}|${path}|${refName(old) ?? ''}|${refName(next) ?? ''}`;
    if (this.visiting.has(pairKey) || path.split('.').length > 40) return;
    this.visiting.add(pairKey);
    const oldSchema = flattenAllOf(this.oldDoc, old);
    const newSchema = flattenAllOf(this.newDoc, next);
    const at = path ? `${where} ${path}` : where;
    this.compareTypes(oldSchema, newSchema, direction, at);
    this.compareValues(oldSchema, newSchema, direction, at);
    this.compareFormat(oldSchema, newSchema, direction, at);
    this.compareLimits(oldSchema, newSchema, direction, at);
    this.compareVariants(oldSchema, newSchema, direction, where, path || '$');
    this.compareProperties(oldSchema, newSchema, direction, where, path || '$');
    if (isObject(oldSchema.items) || isObject(newSchema.items)) {
      this.compareSchema(
        deref(this.oldDoc, oldSchema.items),
        deref(this.newDoc, newSchema.items),
        direction,
        where,
        `${path || '$'}[]`,
      );
    }
    if (isObject(oldSchema.additionalProperties) && isObject(newSchema.additionalProperties)) {
      this.compareSchema(
        deref(this.oldDoc, oldSchema.additionalProperties),
        deref(this.newDoc, newSchema.additionalProperties),
        direction,
        where,
        `${path || '$'}.*`,
      );
    }
    this.visiting.delete(pairKey);
  }

  /** Adds a directional change: narrowing breaks requests, widening breaks responses. */
  private directional(
    kind: 'narrowed' | 'widened',
    rule: string,
    direction: Direction,
    at: string,
    message: string,
  ): void {
    const breaking = direction === 'request' ? kind === 'narrowed' : kind === 'widened';
    const why =
      direction === 'request'
        ? kind === 'narrowed'
          ? 'clients may send values no longer accepted'
          : 'old requests still accepted'
        : kind === 'widened'
          ? 'clients may receive values they do not expect'
          : 'clients still receive values they expect';
    this.add(rule, breaking, at, `${message} (${direction} ${kind}: ${why})`);
  }

  private compareTypes(old: Node, next: Node, direction: Direction, at: string): void {
    const before = declaredTypes(old);
    const after = declaredTypes(next);
    if (!before && !after) return;
    const show = (types: Set<JsonType> | undefined) => (types ? [...types].sort().join('|') : 'any');
    if (!before || !after) {
      this.directional(
        before ? 'widened' : 'narrowed',
        before ? 'type-widened' : 'type-narrowed',
        direction,
        at,
        `type ${show(before)} -> ${show(after)}`,
      );
      return;
    }
    const wider = typesWithin(before, after);
    const narrower = typesWithin(after, before);
    if (wider && narrower) return;
    if (!wider && !narrower) {
      this.add('type-changed', true, at, `type ${show(before)} -> ${show(after)} (clients on either side break)`);
      return;
    }
    this.directional(
      wider ? 'widened' : 'narrowed',
      wider ? 'type-widened' : 'type-narrowed',
      direction,
      at,
      `type ${show(before)} -> ${show(after)}`,
    );
  }

  private compareValues(old: Node, next: Node, direction: Direction, at: string): void {
    const before = closedValues(old);
    const after = closedValues(next);
    const oldKnown = knownValues(old);
    const newKnown = knownValues(next);
    if (before && after) {
      const removed = before.filter((value) => !after.some((other) => sameValue(value, other)));
      const added = after.filter((value) => !before.some((other) => sameValue(value, other)));
      if (removed.length > 0) {
        this.directional(
          'narrowed',
          'enum-value-removed',
          direction,
          at,
          `values removed: ${removed.map((v) => sample(v, 40)).join(', ')}`,
        );
      }
      if (added.length > 0) {
        this.directional(
          'widened',
          'enum-value-added',
          direction,
          at,
          `values added: ${added.map((v) => sample(v, 40)).join(', ')}`,
        );
      }
    } else if (before && !after) {
      const open = newKnown ? ' (now an open set of known values)' : '';
      this.directional('widened', 'enum-removed', direction, at, `closed value list removed${open}`);
    } else if (!before && after) {
      this.directional('narrowed', 'enum-added', direction, at, `value list introduced: ${sample(after, 60)}`);
    }
    if ((oldKnown || newKnown) && sample(oldKnown ?? [], 500) !== sample(newKnown ?? [], 500)) {
      this.add(
        'known-values-changed',
        false,
        at,
        'open list of known values changed (clients must accept unknown values anyway)',
      );
    }
  }

  private compareFormat(old: Node, next: Node, direction: Direction, at: string): void {
    const before = typeof old.format === 'string' ? old.format : undefined;
    const after = typeof next.format === 'string' ? next.format : undefined;
    if (before === after) return;
    if (before && after) {
      this.add('format-changed', true, at, `format ${before} -> ${after} (values of one are not values of the other)`);
    } else if (after) {
      this.directional('narrowed', 'format-added', direction, at, `format ${after} added`);
    } else {
      this.directional('widened', 'format-removed', direction, at, `format ${before} removed`);
    }
  }

  private compareLimits(old: Node, next: Node, direction: Direction, at: string): void {
    const limit = (node: Node, name: string) => (typeof node[name] === 'number' ? (node[name] as number) : undefined);
    for (const name of [...LOWER_BOUNDS, ...UPPER_BOUNDS]) {
      const before = limit(old, name);
      const after = limit(next, name);
      if (before === after) continue;
      const lower = (LOWER_BOUNDS as readonly string[]).includes(name);
      let narrowed: boolean;
      if (before === undefined) narrowed = true;
      else if (after === undefined) narrowed = false;
      else narrowed = lower ? after > before : after < before;
      this.directional(
        narrowed ? 'narrowed' : 'widened',
        narrowed ? 'limit-narrowed' : 'limit-widened',
        direction,
        at,
        `${name} ${before ?? 'none'} -> ${after ?? 'none'}`,
      );
    }
    const before = typeof old.pattern === 'string' ? old.pattern : undefined;
    const after = typeof next.pattern === 'string' ? next.pattern : undefined;
    if (before === after) return;
    if (before && after) this.add('pattern-changed', true, at, `pattern ${before} -> ${after}`);
    else
      this.directional(
        after ? 'narrowed' : 'widened',
        after ? 'limit-narrowed' : 'limit-widened',
        direction,
        at,
        `pattern ${before ?? 'none'} -> ${after ?? 'none'}`,
      );
  }

  private compareVariants(old: Node, next: Node, direction: Direction, where: string, path: string): void {
    for (const keyword of ['oneOf', 'anyOf'] as const) {
      const before = Array.isArray(old[keyword]) ? (old[keyword] as unknown[]) : undefined;
      const after = Array.isArray(next[keyword]) ? (next[keyword] as unknown[]) : undefined;
      if (!before && !after) continue;
      const oldNames = variantNames(this.oldDoc, old, before ?? []);
      const newNames = variantNames(this.newDoc, next, after ?? []);
      const at = `${where} ${path}`;
      for (const [name, branch] of oldNames) {
        const counterpart = newNames.get(name);
        if (!counterpart) {
          this.directional('narrowed', 'variant-removed', direction, at, `${keyword} variant ${name} removed`);
        } else {
          this.compareSchema(
            deref(this.oldDoc, branch),
            deref(this.newDoc, counterpart),
            direction,
            where,
            `${path}<${name}>`,
          );
        }
      }
      for (const name of newNames.keys()) {
        if (!oldNames.has(name))
          this.directional('widened', 'variant-added', direction, at, `${keyword} variant ${name} added`);
      }
    }
  }

  /**
   * An optional field becoming expected, or the reverse (`x-kgate-level`): the wire does not
   * change, but what the gate warns about does, so it is reported, as not breaking.
   */
  private compareLevels(old: unknown, next: unknown, at: string): void {
    const level = (node: unknown) =>
      isObject(node) && typeof node['x-kgate-level'] === 'string' ? node['x-kgate-level'] : 'optional';
    const [before, after] = [level(old), level(next)];
    if (before === after) return;
    const effect =
      after === 'expected' ? 'kgate now warns when it is missing' : 'kgate no longer warns when it is missing';
    this.add('property-level-changed', false, at, `field level ${before} -> ${after} (${effect})`);
  }

  private compareProperties(old: Node, next: Node, direction: Direction, where: string, path: string): void {
    const before = isObject(old.properties) ? old.properties : {};
    const after = isObject(next.properties) ? next.properties : {};
    const oldRequired = requiredSet(old);
    const newRequired = requiredSet(next);
    for (const [name, schema] of Object.entries(before)) {
      const child = `${path}.${name}`;
      const at = `${where} ${child}`;
      if (!(name in after)) {
        this.add(
          'property-removed',
          true,
          at,
          direction === 'response'
            ? 'documented response field removed; clients reading it break'
            : 'request field removed; clients sending it may be rejected',
        );
        continue;
      }
      if (!oldRequired.has(name) && newRequired.has(name)) {
        this.directional('narrowed', 'property-became-required', direction, at, 'field became required');
      } else if (oldRequired.has(name) && !newRequired.has(name)) {
        this.directional('widened', 'property-became-optional', direction, at, 'field became optional');
      } else if (!newRequired.has(name)) {
        this.compareLevels(schema, after[name], at);
      }
      this.compareSchema(deref(this.oldDoc, schema), deref(this.newDoc, after[name]), direction, where, child);
    }
    for (const name of Object.keys(after)) {
      if (name in before) continue;
      const at = `${where} ${path}.${name}`;
      if (direction === 'request' && newRequired.has(name)) {
        this.add('required-property-added', true, at, 'new required request field; existing clients do not send it');
      } else this.add('property-added', false, at, `new ${direction} field`);
    }
  }
}

function collectOperations(doc: unknown): Map<string, Operation> {
  const operations = new Map<string, Operation>();
  const paths = isObject(doc) && isObject(doc.paths) ? doc.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = deref(doc, rawItem);
    if (!isObject(item)) continue;
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of METHODS) {
      const node = item[method];
      if (!isObject(node)) continue;
      const parameters = new Map<string, Node>();
      for (const raw of [...shared, ...(Array.isArray(node.parameters) ? node.parameters : [])]) {
        const parameter = deref(doc, raw);
        if (!isObject(parameter) || typeof parameter.name !== 'string') continue;
        const name = parameter.in === 'header' ? parameter.name.toLowerCase() : parameter.name;
        parameters.set(`${String(parameter.in)}:${name}`, parameter);
      }
      // Path parameter names are not visible to clients: /a/{x} and /a/{y} are the same operation.
      const key = `${method.toUpperCase()} ${path.replace(/\{[^}]*\}/g, '{}')}`;
      const security = Array.isArray(node.security)
        ? node.security
        : isObject(doc) && Array.isArray(doc.security)
          ? doc.security
          : [];
      operations.set(key, {
        label: `${method.toUpperCase()} ${path}`,
        node,
        parameters,
        security: security.filter(isObject).map((requirement) => Object.keys(requirement).sort()),
      });
    }
  }
  return operations;
}

function mediaTypes(node: unknown): Map<string, Node> {
  const content = isObject(node) && isObject(node.content) ? node.content : isObject(node) ? node : {};
  const out = new Map<string, Node>();
  for (const [type, media] of Object.entries(content)) {
    if (!type.includes('/') || !isObject(media)) continue;
    out.set(type.split(';')[0]!.trim().toLowerCase(), media);
  }
  return out;
}

function variantNames(doc: unknown, schema: Node, branches: unknown[]): Map<string, unknown> {
  const property = discriminatorProperty(doc, schema, branches);
  const names = new Map<string, unknown>();
  branches.forEach((branch, index) => {
    const tags = property ? branchTags(doc, branch, property) : [];
    const resolved = deref(doc, branch);
    const title = isObject(resolved) && typeof resolved.title === 'string' ? resolved.title : undefined;
    const name = tags.length > 0 ? tags.map((tag) => String(tag)).join('|') : (refName(branch) ?? title ?? `#${index}`);
    names.set(name, branch);
  });
  return names;
}

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
