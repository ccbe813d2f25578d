// The paper entity attributes of facts.md: their types and the operations expressions may apply to them.

/** Composite attribute groups: their parts only appear inside Composite(...). */
export type CompositeGroup = 'AA' | 'F' | 'J' | 'C';

/** One queryable or returnable attribute. */
export interface AttributeSpec {
  name: string;
  group?: CompositeGroup;
  part?: string;
  type: 'number' | 'string' | 'date';
  equals: boolean;
  startsWith: boolean;
  between: boolean;
  /** `=` also matches synonyms of the value (`==` never does). */
  synonyms: boolean;
  /** Single-valued, so evaluate can order by it. */
  sortable: boolean;
}

function spec(
  name: string,
  type: AttributeSpec['type'],
  ops: string,
  sortable: boolean,
  synonyms = false,
): AttributeSpec {
  const [group, part] = name.includes('.') ? (name.split('.') as [CompositeGroup, string]) : [undefined, undefined];
  return {
    name,
    ...(group ? { group, part } : {}),
    type,
    equals: ops.includes('E'),
    startsWith: ops.includes('S'),
    between: ops.includes('B'),
    synonyms,
    sortable,
  };
}

/** Every attribute, in the order entities list them. E = Equals, S = StartsWith, B = IsBetween. */
export const ATTRIBUTES: readonly AttributeSpec[] = [
  spec('Id', 'number', 'E', true),
  spec('Ti', 'string', 'ES', true),
  spec('W', 'string', 'E', false),
  // Y also accepts StartsWith so that the number-prefix form of facts.md (Y='19'...) has an attribute to apply to.
  spec('Y', 'number', 'EBS', true),
  spec('D', 'date', 'EB', true),
  spec('CC', 'number', '', true),
  spec('ECC', 'number', '', true),
  spec('AA.AuN', 'string', 'ES', false, true),
  spec('AA.AuId', 'number', 'E', false),
  spec('AA.AfN', 'string', 'ES', false, true),
  spec('AA.AfId', 'number', 'E', false),
  spec('AA.S', 'number', 'E', false),
  spec('F.FN', 'string', 'ES', false),
  spec('F.FId', 'number', 'E', false),
  spec('J.JN', 'string', 'ES', true),
  spec('J.JId', 'number', 'E', true),
  spec('C.CN', 'string', 'ES', true),
  spec('C.CId', 'number', 'E', true),
  spec('RId', 'number', 'E', false),
  spec('DOI', 'string', 'ES', true),
];

/** Attribute name by its lower-case spelling: what a server reading names case-insensitively would match. */
export const ATTRIBUTE_BY_LOWER: ReadonlyMap<string, string> = new Map(
  ATTRIBUTES.map((a) => [a.name.toLowerCase(), a.name]),
);

/** Attribute by exact (case-sensitive) name. */
export const ATTRIBUTE_BY_NAME: ReadonlyMap<string, AttributeSpec> = new Map(ATTRIBUTES.map((a) => [a.name, a]));

/** Parts of each composite group, in entity order. */
export const GROUP_PARTS: Readonly<Record<CompositeGroup, readonly string[]>> = {
  AA: ['AuN', 'AuId', 'AfN', 'AfId', 'S'],
  F: ['FN', 'FId'],
  J: ['JN', 'JId'],
  C: ['CN', 'CId'],
};

/** True when `name` is a composite group name (AA, F, J, C). */
export function isGroup(name: string): name is CompositeGroup {
  return name === 'AA' || name === 'F' || name === 'J' || name === 'C';
}
