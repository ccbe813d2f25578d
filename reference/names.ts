import { Random } from './random.ts';

/** A named thing shared by answer search entities and event knowledge (linked by its wikipedia slug). */
export interface NamedEntity {
  name: string;
  /** Wikipedia-style id: the name with spaces as underscores, e.g. 'Barack_Obama'. */
  slug: string;
  kind: 'Person' | 'Place' | 'Organization';
  description: string;
}

const WELL_KNOWN: [string, NamedEntity['kind'], string][] = [
  ['Barack Obama', 'Person', 'former head of state and author'],
  ['Angela Merkel', 'Person', 'former head of government and physicist'],
  ['Marie Curie', 'Person', 'physicist and chemist'],
  ['Ada Lovelace', 'Person', 'mathematician and early computing writer'],
  ['Nelson Mandela', 'Person', 'statesman and activist'],
  ['Microsoft', 'Organization', 'technology company'],
  ['United Nations', 'Organization', 'intergovernmental organization'],
  ['European Union', 'Organization', 'political and economic union'],
  ['World Health Organization', 'Organization', 'agency for international public health'],
  ['NASA', 'Organization', 'space agency'],
  ['Olympic Games', 'Organization', 'international multi-sport event'],
  ['Seattle', 'Place', 'city on the Pacific coast'],
  ['Paris', 'Place', 'capital city on the Seine'],
  ['Tokyo', 'Place', 'capital city and metropolis'],
  ['Amazon River', 'Place', 'river in South America'],
  ['Mount Everest', 'Place', 'highest mountain above sea level'],
];

const FIRST = [
  'Amara',
  'Bruno',
  'Chiara',
  'Dmitri',
  'Elena',
  'Farid',
  'Greta',
  'Hiro',
  'Ines',
  'Jonas',
  'Kaia',
  'Luca',
  'Mina',
  'Nils',
  'Oona',
  'Pavel',
  'Rosa',
  'Sanjay',
  'Talia',
  'Umar',
  'Vera',
  'Wen',
  'Yara',
  'Zeno',
];
const LAST = [
  'Achterberg',
  'Balogun',
  'Castellano',
  'Dahlqvist',
  'Esposito',
  'Fonseca',
  'Grimaldi',
  'Halvorsen',
  'Ishikawa',
  'Jankowski',
  'Kovalenko',
  'Lindqvist',
  'Marchetti',
  'Nakamura',
  'Okafor',
  'Petrov',
  'Quintero',
  'Rasmussen',
  'Szabo',
  'Takahashi',
  'Varga',
  'Whitlock',
  'Yilmaz',
  'Zielinski',
];
const PLACE_A = ['North', 'South', 'East', 'West', 'Port', 'Lake', 'New', 'Old', 'Upper', 'Lower'];
const PLACE_B = [
  'Elvane',
  'Marrow',
  'Caldera',
  'Brightwater',
  'Fenwick',
  'Oakridge',
  'Sunhaven',
  'Thornbury',
  'Valmora',
  'Westmere',
  'Ashford',
  'Ironvale',
];
const ORG_A = [
  'Northwind',
  'Bluecrest',
  'Silverline',
  'Harborview',
  'Keystone',
  'Meridian',
  'Quantum',
  'Redwood',
  'Summit',
  'Tidewater',
];
const ORG_B = [
  'Institute',
  'Foundation',
  'Laboratories',
  'Alliance',
  'Council',
  'Observatory',
  'Museum',
  'Orchestra',
  'University',
  'Federation',
];
const ROLES = [
  'researcher',
  'novelist',
  'architect',
  'composer',
  'engineer',
  'athlete',
  'economist',
  'journalist',
  'diplomat',
  'physician',
];

/** The deterministic list of named entities for a seed (well-known names first, then generated ones). */
export function namedEntities(seed: number, generated = 240): NamedEntity[] {
  const out: NamedEntity[] = WELL_KNOWN.map(([name, kind, description]) => ({
    name,
    kind,
    slug: name.replaceAll(' ', '_'),
    description: `${name} is a ${description}.`,
  }));
  const seen = new Set(out.map((entity) => entity.name));
  const random = new Random(seed ^ 0x5eed);
  while (out.length < WELL_KNOWN.length + generated) {
    const roll = random.next();
    let name: string;
    let kind: NamedEntity['kind'];
    let description: string;
    if (roll < 0.5) {
      name = `${random.pick(FIRST)} ${random.pick(LAST)}`;
      kind = 'Person';
      description = `${name} is a ${random.pick(ROLES)} born in ${random.int(1940, 2001)}.`;
    } else if (roll < 0.75) {
      name = `${random.pick(PLACE_A)} ${random.pick(PLACE_B)}`;
      kind = 'Place';
      description = `${name} is a town of about ${random.int(5, 900) * 1000} people.`;
    } else {
      name = `${random.pick(ORG_A)} ${random.pick(ORG_B)}`;
      kind = 'Organization';
      description = `${name} is an organization founded in ${random.int(1850, 2020)}.`;
    }
    if (seen.has(name)) continue;
    seen.add(name);
    out.push({ name, kind, slug: name.replaceAll(' ', '_'), description });
  }
  return out;
}
