// The `attributes` and `orderby` parameters: which fields an entity carries, and how entities are ordered.
import { ATTRIBUTE_BY_NAME, ATTRIBUTES, type CompositeGroup, GROUP_PARTS, isGroup } from './attributes.ts';
import type { Corpus } from './corpus.ts';
import { BadArgument, clip } from './params.ts';
import type { Budget } from './query.ts';

/** Builds the JSON object of one document. */
export type Projector = (doc: number) => Record<string, unknown>;

type Writer = (g: number, out: Record<string, unknown>) => void;

/** Reads a comma-separated, case-sensitive attribute list; a group name (AA, F, J, C) stands for all its parts. */
export function parseAttributeList(value: string, allowGroups: boolean): string[] {
  const names: string[] = [];
  for (const raw of value.split(',')) {
    const name = raw.trim();
    if (name === '') continue;
    const known = ATTRIBUTE_BY_NAME.has(name) || (allowGroups && isGroup(name));
    if (!known) {
      throw new BadArgument(
        `Missing or invalid parameter: attributes has unknown attribute '${clip(name)}' (names are case-sensitive)`,
      );
    }
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

/** Compiles the projection for a list of attribute names (already validated). */
export function projector(corpus: Corpus, names: string[]): Projector {
  const wanted = new Set<string>();
  for (const name of names) {
    if (isGroup(name)) for (const part of GROUP_PARTS[name]) wanted.add(`${name}.${part}`);
    else wanted.add(name);
  }
  const writers: Writer[] = [];
  const groupParts = (group: CompositeGroup) => GROUP_PARTS[group].filter((part) => wanted.has(`${group}.${part}`));
  const { authorNames, affiliations, words } = corpus;
  for (const attr of ATTRIBUTES) {
    if (attr.group) continue;
    if (!wanted.has(attr.name)) {
      if (attr.name === 'RId') addGroupWriters();
      continue;
    }
    switch (attr.name) {
      case 'Id':
        writers.push((g, out) => {
          out.Id = corpus.id[g];
        });
        break;
      case 'Ti':
        writers.push((g, out) => {
          out.Ti = corpus.title(g);
        });
        break;
      case 'W':
        writers.push((g, out) => {
          out.W = corpus.uniqueWords(g).map((w) => words[w]);
        });
        break;
      case 'Y':
        writers.push((g, out) => {
          out.Y = corpus.year[g];
        });
        break;
      case 'D':
        writers.push((g, out) => {
          out.D = corpus.dateString(g);
        });
        break;
      case 'CC':
        writers.push((g, out) => {
          out.CC = corpus.cc[g];
        });
        break;
      case 'ECC':
        writers.push((g, out) => {
          out.ECC = corpus.ecc[g];
        });
        break;
      case 'RId':
        addGroupWriters();
        writers.push((g, out) => {
          const from = corpus.refOff[g]!;
          const to = corpus.refOff[g + 1]!;
          if (to === from) return;
          const ids: number[] = [];
          for (let i = from; i < to; i++) ids.push(corpus.id[corpus.refs[i]!]!);
          out.RId = ids;
        });
        break;
      case 'DOI':
        writers.push((g, out) => {
          const doi = corpus.doi(g);
          if (doi !== undefined) out.DOI = doi;
        });
        break;
    }
  }

  // Composite groups come between ECC and RId, as in the attribute table.
  function addGroupWriters(): void {
    const aa = groupParts('AA');
    if (aa.length > 0) {
      writers.push((g, out) => {
        const list: Record<string, unknown>[] = [];
        for (let i = corpus.authOff[g]!; i < corpus.authOff[g + 1]!; i++) {
          const author = corpus.authAuthor[i]!;
          const aff = corpus.authAff[i]!;
          const item: Record<string, unknown> = {};
          for (const part of aa) {
            if (part === 'AuN') item.AuN = authorNames.values[corpus.authorName[author]!];
            else if (part === 'AuId') item.AuId = corpus.auId(author);
            else if (part === 'AfN' && aff >= 0) item.AfN = affiliations.values[aff];
            else if (part === 'AfId' && aff >= 0) item.AfId = corpus.afId(aff);
            else if (part === 'S') item.S = i - corpus.authOff[g]! + 1;
          }
          if (Object.keys(item).length > 0) list.push(item);
        }
        if (list.length > 0) out.AA = list;
      });
    }
    const f = groupParts('F');
    if (f.length > 0) {
      writers.push((g, out) => {
        const list: Record<string, unknown>[] = [];
        for (let i = corpus.fieldOff[g]!; i < corpus.fieldOff[g + 1]!; i++) {
          const field = corpus.fieldIds[i]!;
          const item: Record<string, unknown> = {};
          for (const part of f) {
            if (part === 'FN') item.FN = corpus.fields.values[field];
            else item.FId = corpus.fId(field);
          }
          list.push(item);
        }
        if (list.length > 0) out.F = list;
      });
    }
    const j = groupParts('J');
    if (j.length > 0) {
      writers.push((g, out) => {
        const journal = corpus.journal(g);
        if (journal < 0) return;
        const item: Record<string, unknown> = {};
        for (const part of j) {
          if (part === 'JN') item.JN = corpus.journals.values[journal];
          else item.JId = corpus.jId(journal);
        }
        out.J = item;
      });
    }
    const c = groupParts('C');
    if (c.length > 0) {
      writers.push((g, out) => {
        const conference = corpus.conference(g);
        if (conference < 0) return;
        const item: Record<string, unknown> = {};
        for (const part of c) {
          if (part === 'CN') item.CN = corpus.conferences.values[conference];
          else item.CId = corpus.cId(conference);
        }
        out.C = item;
      });
    }
  }

  return (doc) => {
    const g = corpus.byRank[doc]!;
    const out: Record<string, unknown> = { prob: corpus.probByRank[doc] };
    for (const write of writers) write(g, out);
    return out;
  };
}

/** A parsed `orderby`: the attribute and the direction. */
export interface OrderBy {
  attribute: string;
  descending: boolean;
}

/** Names evaluate can order by (single-valued attributes). */
export const SORTABLE = ATTRIBUTES.filter((a) => a.sortable).map((a) => a.name);

/** Reads `orderby` (`Attr`, `Attr:asc`, `Attr:desc`; ascending when no direction is given). */
export function parseOrderBy(value: string): OrderBy {
  const match = /^([A-Za-z]+(?:\.[A-Za-z]+)?)(?::(asc|desc))?$/i.exec(value.trim());
  const attribute = match?.[1];
  if (!match || attribute === undefined || !ATTRIBUTE_BY_NAME.get(attribute)?.sortable) {
    throw new BadArgument(
      `Missing or invalid parameter: orderby must be <attribute>[:asc|:desc] with one of ${SORTABLE.join(', ')}; got '${clip(value)}'`,
    );
  }
  return { attribute, descending: match[2]?.toLowerCase() === 'desc' };
}

type SortKey = number | string | undefined;

function sortKey(corpus: Corpus, attribute: string): (g: number) => SortKey {
  switch (attribute) {
    case 'Id':
      return (g) => corpus.id[g];
    case 'Ti':
      return (g) => corpus.title(g);
    case 'Y':
      return (g) => corpus.year[g];
    case 'D':
      return (g) => corpus.date[g];
    case 'CC':
      return (g) => corpus.cc[g];
    case 'ECC':
      return (g) => corpus.ecc[g];
    case 'DOI':
      return (g) => corpus.doi(g);
    case 'J.JN':
      return (g) => (corpus.journal(g) >= 0 ? corpus.journals.values[corpus.journal(g)] : undefined);
    case 'J.JId':
      return (g) => (corpus.journal(g) >= 0 ? corpus.jId(corpus.journal(g)) : undefined);
    case 'C.CN':
      return (g) => (corpus.conference(g) >= 0 ? corpus.conferences.values[corpus.conference(g)] : undefined);
    default:
      return (g) => (corpus.conference(g) >= 0 ? corpus.cId(corpus.conference(g)) : undefined);
  }
}

/**
 * The first `limit` documents of `docs` ordered by `order`; ties (and missing values, always last) fall back to
 * descending prob. Large inputs keep a bounded buffer instead of sorting everything.
 */
export function orderDocs(corpus: Corpus, docs: Int32Array, order: OrderBy, limit: number, budget: Budget): number[] {
  const key = sortKey(corpus, order.attribute);
  const sign = order.descending ? -1 : 1;
  type Row = { doc: number; key: SortKey };
  const compare = (a: Row, b: Row): number => {
    if (a.key !== b.key) {
      if (a.key === undefined) return 1;
      if (b.key === undefined) return -1;
      return (a.key < b.key ? -1 : 1) * sign;
    }
    return a.doc - b.doc;
  };
  const keep = Math.max(limit, 1);
  let rows: Row[] = [];
  for (let i = 0; i < docs.length; i++) {
    if ((i & 4095) === 4095 && budget.expired()) break;
    const doc = docs[i]!;
    rows.push({ doc, key: key(corpus.byRank[doc]!) });
    if (rows.length >= 2 * keep + 4096) {
      rows.sort(compare);
      rows = rows.slice(0, keep);
    }
  }
  rows.sort(compare);
  return rows.slice(0, limit).map((row) => row.doc);
}
