// The coverage model: every thing the gate can judge is an item. A cell is one check on one
// operation (the operation x check matrix); an input item is one class of value of one input of one
// operation (classes.ts). The list is generated from the spec (openapi/openapi.yaml) and the
// classes, so a new parameter of the spec without classes fails the coverage test.
import { OPERATIONS } from '../../openapi/spec.ts';
import { CHECKS } from '../checks/index.ts';
import type { ClassIntent } from './classes.ts';
import { allInputItems, cellId } from './inputs.ts';

/** One item of the coverage model. */
export interface CoverageItem {
  /** `cell:<operationId>:<check>` or `input:<operationId>:<input>:<class>`. */
  id: string;
  kind: 'cell' | 'input';
  operationId: string;
  /** The operation's label (`GET /academic/v1.0/evaluate`). */
  operation: string;
  /** A cell's check. */
  check?: string;
  /** An input item's input (a parameter, a form field, or the request as a whole). */
  input?: string;
  /** An input item's class. */
  class?: string;
  /** An input item's intent: answered, rejected, or any answer but a 5xx. */
  intent?: ClassIntent;
  /** What the item is, in a few words. */
  says: string;
}

let cached: CoverageItem[] | undefined;

/** Every item of the model, cells first, in the order of the spec's operations and the registry's checks. */
export function coverageItems(): CoverageItem[] {
  if (cached) return cached;
  const cells: CoverageItem[] = OPERATIONS.flatMap((op) =>
    CHECKS.filter((check) => check.appliesTo(op)).map((check) => ({
      id: cellId(op.operationId, check.id),
      kind: 'cell' as const,
      operationId: op.operationId,
      operation: op.label,
      check: check.id,
      says: check.verifies,
    })),
  );
  const inputs: CoverageItem[] = allInputItems().map((item) => ({ ...item, kind: 'input' as const }));
  cached = [...cells, ...inputs];
  return cached;
}

/** Items by id. */
export function itemsById(): Map<string, CoverageItem> {
  return new Map(coverageItems().map((item) => [item.id, item]));
}
