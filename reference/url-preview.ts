import type { components } from '../openapi/generated/schema.d.ts';
import { badParameter } from './errors.ts';
import type { HandlerResult } from './faults/types.ts';
import { ParameterError, requiredParam } from './paging.ts';
import { hash32, randomFor } from './random.ts';

const TOPICS = [
  'river restoration',
  'night markets',
  'glacier retreat',
  'open data portals',
  'urban orchards',
  'tidal energy',
  'library architecture',
  'jazz history',
  'bicycle commuting',
  'coral reefs',
  'street photography',
  'rail timetables',
  'mountain huts',
  'bread baking',
  'solar sails',
  'ancient maps',
  'chess openings',
  'wetland birds',
];
const KINDS = ['Guide', 'Notes', 'Handbook', 'Field Report', 'Overview', 'Journal'];

/** Most URL characters a preview echoes or hashes; longer URLs are answered 400 (they are not useful previews). */
export const MAX_PREVIEW_URL = 8192;

/** Deterministic previews: any absolute http(s) URL maps by hash onto one of a fixed set of corpus pages. */
export class PreviewCorpus {
  private readonly pages: { name: string; description: string; image: string }[];
  private readonly cache = new Map<string, string>();

  constructor(
    readonly seed: number,
    size = 512,
  ) {
    this.pages = Array.from({ length: size }, (_, i) => {
      const random = randomFor(seed, 'preview', i);
      const topic = random.pick(TOPICS);
      const kind = random.pick(KINDS);
      const title = `${topic.replace(/\b\w/g, (c) => c.toUpperCase())} ${kind} #${i + 1}`;
      return {
        name: title,
        description: `${kind} on ${topic}: ${random.int(2, 30)} chapters, ${random.int(3, 90)} photographs and a reading list.`,
        image: `https://images.reference.kgate.test/preview/${i + 1}-${random.hex(8)}.jpg`,
      };
    });
  }

  /** The serialized preview of a URL already known to be valid (cached by the URL string). */
  preview(url: string): string {
    let body = this.cache.get(url);
    if (body === undefined) {
      const page = this.pages[hash32(`${this.seed}|${url}`) % this.pages.length]!;
      const preview: components['schemas']['UrlPreviewResponse'] = {
        _type: 'WebPage',
        name: page.name,
        url,
        description: page.description,
        primaryImageOfPage: { contentUrl: page.image },
      };
      body = JSON.stringify(preview);
      if (this.cache.size >= 10_000) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(url, body);
    }
    return body;
  }
}

/** True for an absolute http or https URL with a host. */
export function isPreviewableUrl(text: string): boolean {
  if (text.length > MAX_PREVIEW_URL || !/^https?:\/\//i.test(text)) return false;
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** GET /urlpreview/v7.0/search: `q` must be an absolute http(s) URL. */
export function urlPreview(corpus: PreviewCorpus, params: Record<string, string>): HandlerResult {
  try {
    const q = requiredParam('urlPreview', params, 'q').trim();
    if (!isPreviewableUrl(q)) return badParameter('urlPreview', 'q', 'must be an absolute http or https URL');
    return { status: 200, rawBody: corpus.preview(q) };
  } catch (error) {
    if (error instanceof ParameterError) return error.result;
    throw error;
  }
}
