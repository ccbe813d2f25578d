// Reading JSON answers that may have any shape: the suite takes what it needs and never trusts a
// body to match the spec (the request fixture judges that, once, on the operation that answered).

/** The value at `key` of a JSON value, if it is an object. */
export function field(json: unknown, key: string): unknown {
  return json !== null && typeof json === 'object' && !Array.isArray(json)
    ? (json as Record<string, unknown>)[key]
    : undefined;
}

/** The elements of a JSON value that are objects, if it is an array (none otherwise). */
export function objects(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value)
    ? value.filter((item): item is Record<string, unknown> => item !== null && typeof item === 'object')
    : [];
}
