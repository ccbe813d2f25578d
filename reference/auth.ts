import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The APIs a key can be subscribed to ('academic' covers interpret, evaluate, calchistogram and similarity). */
export const SUBSCRIPTIONS = ['academic', 'answerSearch', 'urlPreview', 'eventKnowledge'] as const;
/** One API a key can be subscribed to. */
export type Subscription = (typeof SUBSCRIPTIONS)[number];

/** One subscription key, what it may call and how many calls it has left. */
export interface KeyRecord {
  name: string;
  key: string;
  subscriptions: ReadonlySet<Subscription>;
  /** Calls allowed over the server's lifetime; Infinity when unlimited. */
  quota: number;
  used: number;
  /** True for keys read from a config file (never printed unmasked). */
  fromConfig: boolean;
}

/** The built-in key strings for a seed: `<role>-` followed by 24 hex chars of sha256("kgate-reference:<seed>:<role>"). */
export function defaultKey(seed: number, role: 'full' | 'academicOnly' | 'exhausted'): string {
  const digest = createHash('sha256').update(`kgate-reference:${seed}:${role}`).digest('hex');
  return `${role}-${digest.slice(0, 24)}`;
}

/** A config file that cannot be used; the message names the file and the problem. */
export class KeyConfigError extends Error {
  override name = 'KeyConfigError';
}

/**
 * The key table: the three built-in keys, then the keys of the config file. A config entry named
 * `full`, `academicOnly` or `exhausted` replaces that built-in key.
 *
 * Config file format: `{ "keys": [ { "name"?: string, "key": string, "subscriptions": ["academic", ...] | "all", "quota"?: number } ] }`.
 */
export class KeyTable {
  private readonly byKey = new Map<string, KeyRecord>();
  private readonly byName = new Map<string, KeyRecord>();

  constructor(seed: number, configFile?: string) {
    const all = new Set<Subscription>(SUBSCRIPTIONS);
    this.add({
      name: 'full',
      key: defaultKey(seed, 'full'),
      subscriptions: all,
      quota: Infinity,
      used: 0,
      fromConfig: false,
    });
    this.add({
      name: 'academicOnly',
      key: defaultKey(seed, 'academicOnly'),
      subscriptions: new Set<Subscription>(['academic']),
      quota: Infinity,
      used: 0,
      fromConfig: false,
    });
    this.add({
      name: 'exhausted',
      key: defaultKey(seed, 'exhausted'),
      subscriptions: all,
      quota: 0,
      used: 0,
      fromConfig: false,
    });
    if (configFile) for (const record of readKeyConfig(configFile)) this.add(record);
  }

  private add(record: KeyRecord): void {
    const previous = this.byName.get(record.name);
    if (previous) this.byKey.delete(previous.key);
    this.byName.set(record.name, record);
    this.byKey.set(record.key, record);
  }

  /** The record of a key string, if known. */
  lookup(key: string): KeyRecord | undefined {
    return this.byKey.get(key);
  }

  /** The record of a named key. */
  named(name: string): KeyRecord | undefined {
    return this.byName.get(name);
  }

  /** Every key record. */
  records(): KeyRecord[] {
    return [...this.byName.values()];
  }
}

/** Reads and validates a key config file. */
export function readKeyConfig(file: string): KeyRecord[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new KeyConfigError(`config file ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const fail = (where: string, rule: string): never => {
    throw new KeyConfigError(`config file ${file}: ${where} ${rule}`);
  };
  if (typeof parsed !== 'object' || parsed === null || !Array.isArray((parsed as { keys?: unknown }).keys)) {
    fail('top level', 'must be an object with a "keys" array');
  }
  const seen = new Set<string>();
  return (parsed as { keys: unknown[] }).keys.map((entry, i) => {
    const where = `keys[${i}]`;
    if (typeof entry !== 'object' || entry === null) return fail(where, 'must be an object');
    const { name, key, subscriptions, quota } = entry as Record<string, unknown>;
    if (typeof key !== 'string' || key.length < 8 || /\s/.test(key))
      fail(`${where}.key`, 'must be a string of at least 8 non-space characters');
    if (seen.has(key as string)) fail(`${where}.key`, 'is listed twice');
    seen.add(key as string);
    if (name !== undefined && (typeof name !== 'string' || name === ''))
      fail(`${where}.name`, 'must be a non-empty string');
    let subs: Set<Subscription>;
    if (subscriptions === 'all') subs = new Set(SUBSCRIPTIONS);
    else if (
      Array.isArray(subscriptions) &&
      subscriptions.every((s) => (SUBSCRIPTIONS as readonly unknown[]).includes(s))
    ) {
      subs = new Set(subscriptions as Subscription[]);
    } else {
      return fail(`${where}.subscriptions`, `must be "all" or a list of ${SUBSCRIPTIONS.join(', ')}`);
    }
    if (quota !== undefined && quota !== null && !(Number.isSafeInteger(quota) && (quota as number) >= 0)) {
      fail(`${where}.quota`, 'must be a non-negative whole number of calls (or absent for unlimited)');
    }
    return {
      name: (name as string | undefined) ?? `config-${i}`,
      key: key as string,
      subscriptions: subs,
      quota: typeof quota === 'number' ? quota : Infinity,
      used: 0,
      fromConfig: true,
    };
  });
}
