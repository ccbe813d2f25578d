import { fewerVariations } from './fewer.ts';
import { freedomVariations } from './freedoms.ts';
import { httpFieldVariations } from './http-fields.ts';
import { jsonTextVariations } from './json-text.ts';
import { timestampVariations } from './timestamps.ts';
import type { Variation } from './types.ts';

export type { Variation } from './types.ts';

/**
 * A fresh catalogue of legitimate variations: what real deployments may do that the clean server
 * does not, each served under `{url}/variations/<name>`. Some count answers (a form in turn), so
 * each server builds its own.
 */
export function createVariations(): Variation[] {
  return [
    ...jsonTextVariations(),
    ...timestampVariations(),
    ...httpFieldVariations(),
    ...freedomVariations(),
    ...fewerVariations(),
  ];
}

/** The catalogue of variations, one shared instance for listing (see createVariations). */
export const VARIATIONS: Variation[] = createVariations();
