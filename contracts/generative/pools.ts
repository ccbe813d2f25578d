// Value pools drawn from the target through test-data discovery: each operation reads only what
// its generated requests use, so a fault elsewhere never changes its cases.

import type { Failure } from '../failure.ts';
import { objects } from '../json.ts';
import { DataUnavailable, type TestData } from '../test-data.ts';
import { baseOf } from './cases.ts';
import { cleanInt, cleanText, distinct, isCalendarDate, isHttpUrl, mergePools, type ValuePools } from './values.ts';

/**
 * Runs a discovery read; no data (or a broken answer) leaves the built-in values in place, and what
 * the read found wrong (a reset, a hang) goes to `findings` for the test that needed the data.
 */
async function attempt<T>(read: () => Promise<T>, findings?: Failure[]): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (!(error instanceof DataUnavailable)) throw error;
    findings?.push(...error.findings);
    return undefined;
  }
}

/** Pools from paper entities as the target returned them (any field may be missing or mistyped). */
export function poolsFromPapers(papers: Record<string, unknown>[]): Partial<ValuePools> {
  const parts = (group: string, part: string) =>
    papers.flatMap((paper) => objects(paper[group]).map((item) => item[part]));
  const titles = distinct(papers.map((paper) => cleanText(paper.Ti)));
  return {
    titles,
    words: distinct([
      ...papers.flatMap((paper) => (Array.isArray(paper.W) ? paper.W.map((word) => cleanText(word, 40)) : [])),
      ...titles.flatMap((title) => title.split(' ').map((word) => cleanText(word, 40))),
    ]),
    authors: distinct(parts('AA', 'AuN').map((name) => cleanText(name))),
    affiliations: distinct(parts('AA', 'AfN').map((name) => cleanText(name))),
    fields: distinct(parts('F', 'FN').map((name) => cleanText(name))),
    journals: distinct(parts('J', 'JN').map((name) => cleanText(name))),
    conferences: distinct(parts('C', 'CN').map((name) => cleanText(name))),
    dois: distinct(papers.map((paper) => cleanText(paper.DOI))),
    years: distinct(
      papers.map((paper) => cleanInt(paper.Y)).filter((y) => y === undefined || (y >= 1000 && y <= 2999)),
    ),
    dates: distinct(
      papers.map((paper) => (typeof paper.D === 'string' && isCalendarDate(paper.D) ? paper.D : undefined)),
    ),
    paperIds: distinct(papers.map((paper) => cleanInt(paper.Id))),
    authorIds: distinct(parts('AA', 'AuId').map(cleanInt)),
    fieldIds: distinct(parts('F', 'FId').map(cleanInt)),
  };
}

/**
 * The value pools the generated requests of an operation use, read from the target where it has
 * them; what the reads found wrong with the target goes to `findings`.
 */
export async function poolsFor(operationId: string, data: TestData, findings?: Failure[]): Promise<ValuePools> {
  const found: Partial<ValuePools> = {};
  const base = baseOf({ operationId });
  if (['interpret', 'evaluate', 'calchistogram', 'similarity'].includes(base)) {
    const papers = await attempt(() => data.paperValues(), findings);
    if (papers) Object.assign(found, poolsFromPapers(papers));
  }
  if (base === 'answerSearch') {
    const q = await attempt(() => data.answerQuery(), findings);
    if (q) found.answerQueries = distinct([cleanText(q), 'knowledge graph', 'weather']);
  }
  if (base === 'urlPreview') {
    const url = await attempt(() => data.previewUrl(), findings);
    if (url && isHttpUrl(url)) found.urls = [url, 'https://www.example.com/'];
  }
  if (['hotEvents', 'relatedEvents', 'eventDocuments'].includes(base)) {
    const hot = await attempt(() => data.hotDate(), findings);
    if (hot) {
      found.eventDates = [hot.date];
      found.eventIds = distinct(
        hot.events.map((event) => event.eventId).filter((id) => /^[\x21-\x7e]{1,200}$/.test(id)),
      );
      found.entityNames = distinct(hot.events.flatMap((event) => event.relatedEntities));
    }
  }
  if (base === 'relatedEvents') {
    const id = await attempt(() => data.wikipediaId(), findings);
    if (id) found.wikipediaIds = [id];
  }
  return mergePools(found);
}
