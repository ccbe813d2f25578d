// Every form RFC 3339 gives a UTC timestamp, where the interface says "ISO 8601 UTC timestamp":
// answer search's dateLastCrawled, an event's from and to, a document's publishDate.
import { child, editOk, objects } from '../faults/transform.ts';
import type { Variation } from './types.ts';

/** The operations whose answers carry timestamps. */
const STAMPED = ['answerSearch', 'hotEvents', 'relatedEvents', 'eventDocuments'];

/** Rewrites every timestamp of an answer of the stamped operations with `restamp`. */
function restamped(restamp: (text: string) => string): NonNullable<Variation['response']> {
  const edit = (record: Record<string, unknown> | undefined, key: string) => {
    if (record && typeof record[key] === 'string') record[key] = restamp(record[key] as string);
  };
  return editOk((body) => {
    for (const page of objects(child(body, 'webPages')?.value)) edit(page, 'dateLastCrawled');
    for (const item of objects(body.value)) {
      edit(item, 'from');
      edit(item, 'to');
      edit(item, 'publishDate');
      edit(child(item, 'topDocument'), 'publishDate');
    }
  });
}

/** The timestamp variations: the same instants, written in another form RFC 3339 allows. */
export function timestampVariations(): Variation[] {
  let stamps = 0;
  return [
    {
      name: 'timestamps-offset-zero',
      group: 'all',
      operations: STAMPED,
      deviation: 'legitimate',
      allowedBy: 'RFC 3339, section 5.6: time-offset = "Z" / time-numoffset; +00:00 is UTC',
      description: 'every timestamp ends in +00:00 instead of Z (the same instant)',
      response: restamped((text) => text.replace(/Z$/, '+00:00')),
    },
    {
      name: 'timestamps-fractional-seconds',
      group: 'all',
      operations: STAMPED,
      deviation: 'legitimate',
      allowedBy:
        'RFC 3339, section 5.6: time-secfrac = "." 1*DIGIT, of any length; interface 2.7: fractional seconds may appear',
      description:
        'every timestamp carries fractional seconds, from 1 to 9 digits in turn (2019-01-01T10:00:00.0Z ... 2019-01-01T10:00:00.000000000Z; the same instant)',
      response: restamped((text) =>
        text.replace(
          /(:\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/,
          (_whole, seconds: string, fraction: string | undefined, zone: string) =>
            `${seconds}${fraction ?? '.'}${'0'.repeat(1 + (stamps++ % 9))}${zone}`,
        ),
      ),
    },
    {
      name: 'timestamps-lower-case',
      group: 'all',
      operations: STAMPED,
      deviation: 'legitimate',
      allowedBy: 'RFC 3339, section 5.6, note: the T and Z of a date-time may be written in lower case',
      description: 'every timestamp writes its T and Z in lower case (2019-01-01t10:00:00z)',
      response: restamped((text) => text.replace('T', 't').replace(/Z$/, 'z')),
    },
  ];
}
