import type { components } from '../openapi/generated/schema.d.ts';
import { badParameter } from './errors.ts';
import type { HandlerResult } from './faults/types.ts';
import type { NamedEntity } from './names.ts';
import { intParam, ParameterError, requiredParam } from './paging.ts';
import { hash32, Random, randomFor } from './random.ts';

/** The base of every answer id: `<ANSWER_URL>#WebPages.0`, `#Entities.0`, `#Facts`. */
export const ANSWER_URL = 'https://api.reference.kgate.test/api/v7/';

/** Markets answer search accepts (matched case-insensitively, answered in this spelling). */
export const MARKETS = [
  'da-DK',
  'de-AT',
  'de-CH',
  'de-DE',
  'en-AU',
  'en-CA',
  'en-GB',
  'en-IN',
  'en-NZ',
  'en-US',
  'es-ES',
  'es-MX',
  'fi-FI',
  'fr-CA',
  'fr-FR',
  'it-IT',
  'ja-JP',
  'ko-KR',
  'nl-NL',
  'no-NO',
  'pl-PL',
  'pt-BR',
  'ru-RU',
  'sv-SE',
  'tr-TR',
  'zh-CN',
  'zh-TW',
];
type Schemas = components['schemas'];

const MARKET_BY_LOWER = new Map(MARKETS.map((market) => [market.toLowerCase(), market]));
const SAFE_SEARCH = new Map(['Off', 'Moderate', 'Strict'].map((value) => [value.toLowerCase(), value]));

/** Most web pages a query yields; count/offset page over them. */
export const MAX_WEB_PAGES = 100;

const SITES = [
  'northwind-notes',
  'harbor-ledger',
  'quiet-orchard',
  'lantern-review',
  'open-atlas',
  'field-journal',
  'river-digest',
  'summit-weekly',
  'bright-index',
  'paper-trail',
  'cedar-post',
  'glacier-times',
];
const WORDS = [
  'guide',
  'history',
  'overview',
  'news',
  'facts',
  'analysis',
  'timeline',
  'photos',
  'reference',
  'profile',
  'explained',
  'research',
  'review',
  'biography',
  'map',
  'statistics',
  'interview',
  'archive',
];
const LICENSES = [
  { name: 'CC-BY-SA', url: 'https://creativecommons.org/licenses/by-sa/3.0/' },
  { name: 'CC-BY', url: 'https://creativecommons.org/licenses/by/4.0/' },
];

/** Formats a date the way answer search does: `2026-11-01T10:15:00.0000000Z`. */
export function crawlTimestamp(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}.0000000Z`;
}

function slugify(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 60) || 'page'
  );
}

function titleCase(text: string): string {
  return text.replace(/\S+/g, (word) => word[0]!.toUpperCase() + word.slice(1));
}

interface PageSeed {
  name: string;
  url: string;
  displayUrl: string;
  snippet: string;
  dateLastCrawled: string;
  familyFriendly: boolean;
  about?: { name: string }[];
}

/** Answer search and URL preview data for one seed. */
export class WebCorpus {
  private readonly cache = new Map<string, string>();

  constructor(
    readonly seed: number,
    readonly entities: readonly NamedEntity[],
  ) {}

  /** The i-th page of a query's result list (before safe-search filtering). */
  page(query: string, market: string, i: number): PageSeed {
    const random = randomFor(this.seed, 'web', query.toLowerCase(), market, i);
    const site = random.pick(SITES);
    const word = random.pick(WORDS);
    const topic = query.trim().replace(/\s+/g, ' ').slice(0, 80);
    const path = `${slugify(topic)}-${word}-${i}`;
    const url = `https://www.${site}.test/${market.toLowerCase()}/${path}`;
    const crawled = Date.UTC(2026, 0, 1) + random.int(0, 300 * 24 * 3600) * 1000;
    const related = i % 3 === 0 ? this.entityFor(query, i) : undefined;
    return {
      name: `${titleCase(topic)} ${word} - ${titleCase(site.replace('-', ' '))}`,
      url,
      displayUrl: url.replace('https://', ''),
      snippet: `A ${word} of ${topic} from ${site.replace('-', ' ')}: ${random.int(3, 40)} sections, updated ${new Date(crawled).toISOString().slice(0, 10)}.`,
      dateLastCrawled: crawlTimestamp(crawled),
      familyFriendly: random.chance(0.88),
      ...(related ? { about: [{ name: related.name }] } : {}),
    };
  }

  /** An entity linked to a query: an entity whose name occurs in it first, else one picked by hash. */
  entityFor(query: string, n: number): NamedEntity {
    const lower = query.toLowerCase();
    const named = this.entities.find((entity) => lower.includes(entity.name.toLowerCase()));
    if (named && n === 0) return named;
    return this.entities[(hash32(`${this.seed}|${lower}`) + n * 7919) % this.entities.length]!;
  }

  /** The serialized answer for validated parameters, cached (the answer is a pure function of them). */
  answer(query: string, market: string, count: number, offset: number, safeSearch: string): string {
    const key = `${query}\u0000${market}\u0000${count}\u0000${offset}\u0000${safeSearch}`;
    let body = this.cache.get(key);
    if (body === undefined) {
      body = JSON.stringify(this.build(query, market, count, offset, safeSearch));
      if (this.cache.size >= 5000) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(key, body);
    }
    return body;
  }

  private build(
    query: string,
    market: string,
    count: number,
    offset: number,
    safeSearch: string,
  ): Schemas['AnswerSearchResponse'] {
    const total = 20 + (hash32(`${this.seed}|n|${query.toLowerCase()}`) % (MAX_WEB_PAGES - 19));
    const pages: PageSeed[] = [];
    for (let i = 0; i < total; i++) {
      const page = this.page(query, market, i);
      if (safeSearch === 'Off' || page.familyFriendly) pages.push(page);
    }
    const language = market.slice(0, 2);
    const webPages = pages.slice(offset, offset + count).map((page, i): Schemas['WebPage'] => ({
      id: `${ANSWER_URL}#WebPages.${i}`,
      name: page.name,
      url: page.url,
      ...(page.about ? { about: page.about } : {}),
      isFamilyFriendly: page.familyFriendly,
      displayUrl: page.displayUrl,
      snippet: page.snippet,
      dateLastCrawled: page.dateLastCrawled,
      language,
    }));
    const entityCount = 1 + (hash32(`${this.seed}|e|${query.toLowerCase()}`) % 3);
    const chosen: NamedEntity[] = [];
    for (let n = 0; chosen.length < entityCount && n < 10; n++) {
      const entity = this.entityFor(query, n);
      if (!chosen.includes(entity)) chosen.push(entity);
    }
    const entities = chosen.map((entity, i) => this.entity(entity, i, market));
    const factRandom = randomFor(this.seed, 'facts', query.toLowerCase());
    const subject = chosen[0]!;
    const facts: Schemas['FactsAnswer'] = {
      id: `${ANSWER_URL}#Facts`,
      contractualRules: [
        {
          _type: 'ContractualRules/LinkAttribution',
          text: 'open-atlas.test',
          url: `https://www.open-atlas.test/wiki/${subject.slug}`,
        },
      ],
      attributions: [
        { providerDisplayName: 'Open Atlas', seeMoreUrl: `https://www.open-atlas.test/wiki/${subject.slug}` },
      ],
      value: Array.from({ length: factRandom.int(1, 4) }, (_, i) => ({
        description: `${subject.name}: fact ${i + 1} about ${query.trim().slice(0, 60) || subject.name}.`,
        subjectName: subject.name,
      })),
    };
    const mainline: Schemas['RankingItem'][] = [
      { answerType: 'Facts', value: { id: facts.id } },
      ...webPages.map((page, i) => ({ answerType: 'WebPages', resultIndex: i, value: { id: page.id } })),
    ];
    const sidebar = entities.map((entity, i) => ({ answerType: 'Entities', resultIndex: i, value: { id: entity.id } }));
    return {
      _type: 'SearchResponse',
      queryContext: { originalQuery: query },
      webPages: {
        webSearchUrl: `https://www.reference.kgate.test/search?q=${encodeURIComponent(query)}`,
        totalEstimatedMatches: pages.length,
        value: webPages,
      },
      entities: { value: entities },
      facts,
      rankingResponse: { mainline: { items: mainline }, sidebar: { items: sidebar } },
    };
  }

  private entity(entity: NamedEntity, i: number, market: string): Schemas['Entity'] {
    const random = randomFor(this.seed, 'entity', entity.slug);
    const license = random.pick(LICENSES);
    const page = `https://www.open-atlas.test/wiki/${entity.slug}`;
    const width = random.int(200, 480);
    const height = random.int(200, 480);
    const scale = random.int(2, 6);
    const imageUrl = `https://images.reference.kgate.test/th/${entity.slug}.jpg`;
    return {
      id: `${ANSWER_URL}#Entities.${i}`,
      contractualRules: [
        {
          _type: 'ContractualRules/LicenseAttribution',
          targetPropertyName: 'description',
          mustBeCloseToContent: true,
          license,
          licenseNotice: `Text under ${license.name} license`,
        },
        {
          _type: 'ContractualRules/LinkAttribution',
          targetPropertyName: 'description',
          mustBeCloseToContent: true,
          text: 'Open Atlas',
          url: page,
        },
        {
          _type: 'ContractualRules/MediaAttribution',
          targetPropertyName: 'image',
          mustBeCloseToContent: true,
          url: page,
        },
      ],
      webSearchUrl: `https://www.reference.kgate.test/search?q=${encodeURIComponent(entity.name)}&mkt=${market}`,
      name: entity.name,
      url: page,
      image: {
        name: entity.name,
        thumbnailUrl: imageUrl,
        provider: [{ _type: 'Organization', url: 'https://www.open-atlas.test/' }],
        hostPageUrl: page,
        width,
        height,
        sourceWidth: width * scale,
        sourceHeight: height * scale,
      },
      description: entity.description,
      entityPresentationInfo: {
        entityScenario: i === 0 ? 'DominantEntity' : 'DisambiguationItem',
        entityTypeHints: [entity.kind, 'Generic'],
      },
      bingId: new Random(hash32(`${this.seed}|bing|${entity.slug}`)).uuid(),
    };
  }
}

/** GET /answersearch/v7.0/search: validates q, mkt, count, offset, safesearch and answers from the corpus. */
export function answerSearch(corpus: WebCorpus, params: Record<string, string>): HandlerResult {
  try {
    const query = requiredParam('answerSearch', params, 'q');
    const rawMarket = requiredParam('answerSearch', params, 'mkt');
    const market = MARKET_BY_LOWER.get(rawMarket.trim().toLowerCase());
    if (!market) {
      return badParameter('answerSearch', 'mkt', `'${rawMarket.slice(0, 40)}' is not a supported market (e.g. en-US)`);
    }
    const count = intParam('answerSearch', params, 'count', 10, 1000);
    const offset = intParam('answerSearch', params, 'offset', 0);
    const rawSafe = params.safesearch;
    const safeSearch = rawSafe === undefined ? 'Moderate' : SAFE_SEARCH.get(rawSafe.trim().toLowerCase());
    if (!safeSearch) return badParameter('answerSearch', 'safesearch', 'must be Off, Moderate or Strict');
    return { status: 200, rawBody: corpus.answer(query, market, count, offset, safeSearch) };
  } catch (error) {
    if (error instanceof ParameterError) return error.result;
    throw error;
  }
}
