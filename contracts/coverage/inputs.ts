// The inputs of the spec's operations and the ids of the coverage model's items: what the request
// fixture, the generator and the plan share without the checks' registry (items.ts adds the cells).
import { deref, loadSpec, OPERATIONS, type OperationInfo } from '../../openapi/spec.ts';
import { type ClassIntent, HEADER_INPUTS, type InputClass, MISSING, REQUEST_INPUT, ROLES, roleOf } from './classes.ts';

/** One input of an operation as the spec declares it: a query or path parameter, or a form field. */
export interface SpecInput {
  name: string;
  in: 'query' | 'path' | 'form';
  required: boolean;
}

/** The id of a cell item. */
export function cellId(operationId: string, check: string): string {
  return `cell:${operationId}:${check}`;
}

/** The id of an input item. */
export function inputId(operationId: string, input: string, cls: string): string {
  return `input:${operationId}:${input}:${cls}`;
}

/** Parses an item id into its parts, or undefined when it is no item id of the model's form. */
export function parseItemId(
  id: string,
):
  | { kind: 'cell'; operationId: string; check: string }
  | { kind: 'input'; operationId: string; input: string; class: string }
  | undefined {
  const cell = /^cell:([^:]+):(.+)$/.exec(id);
  if (cell) return { kind: 'cell', operationId: cell[1]!, check: cell[2]! };
  const input = /^input:([^:]+):([^:]+):(.+)$/.exec(id);
  if (input) return { kind: 'input', operationId: input[1]!, input: input[2]!, class: input[3]! };
  return undefined;
}

const INPUTS = new WeakMap<OperationInfo, SpecInput[]>();

/** The inputs the spec declares for an operation: its query and path parameters, or its form body's fields. */
export function specInputs(op: OperationInfo): SpecInput[] {
  const known = INPUTS.get(op);
  if (known) return known;
  const inputs: SpecInput[] = op.parameters
    .filter((param) => param.in === 'query' || param.in === 'path')
    .map((param) => ({ name: param.name, in: param.in as 'query' | 'path', required: param.required }));
  if (op.requestSchema) {
    const schema = deref<{ properties?: Record<string, unknown>; required?: string[] }>(loadSpec(), op.requestSchema);
    for (const name of Object.keys(schema.properties ?? {}))
      inputs.push({ name, in: 'form', required: (schema.required ?? []).includes(name) });
  }
  INPUTS.set(op, inputs);
  return inputs;
}

/**
 * The classes an input takes on an operation (a required query parameter or form field may also be
 * missing; a path parameter cannot be left out of its path); undefined: no role.
 */
export function classesOf(op: OperationInfo, input: SpecInput | PseudoInput): InputClass[] | undefined {
  const name = typeof input === 'string' ? input : input.name;
  const role = roleOf(op.operationId, name, op.method);
  if (!role) return undefined;
  let classes = [...ROLES[role]!.classes];
  // An empty value is a class of the optional parameters a request can leave empty: none, none to leave.
  if (input === REQUEST_INPUT && !specInputs(op).some((entry) => !entry.required && entry.in !== 'path'))
    classes = classes.filter((cls) => cls.id !== 'empty-value');
  if (typeof input !== 'string' && input.required && input.in !== 'path')
    classes.push({ id: MISSING, intent: 'invalid', says: 'left out' });
  return classes;
}

/** An input that is no parameter of the spec: the request as a whole, or one of its header fields. */
export type PseudoInput = typeof REQUEST_INPUT | (typeof HEADER_INPUTS)[number];

/** The pseudo-inputs of every operation, after its parameters. */
const PSEUDO_INPUTS: readonly PseudoInput[] = [REQUEST_INPUT, ...HEADER_INPUTS];

/** One input item: an input's class on an operation. */
export interface InputItem {
  id: string;
  operationId: string;
  operation: string;
  input: string;
  class: string;
  intent: ClassIntent;
  says: string;
  /** An open class read as a value of the input's grammar written another way (classes.ts). */
  same?: true;
}

let inputItems: InputItem[] | undefined;

/** Every input item of the model, in the order of the spec's operations, their inputs and the classes. */
export function allInputItems(): InputItem[] {
  inputItems ??= OPERATIONS.flatMap((op) =>
    [...specInputs(op), ...PSEUDO_INPUTS].flatMap((input) => {
      const name = typeof input === 'string' ? input : input.name;
      return (classesOf(op, input) ?? []).map((cls) => ({
        id: inputId(op.operationId, name, cls.id),
        operationId: op.operationId,
        operation: op.label,
        input: name,
        class: cls.id,
        intent: cls.intent,
        says: cls.says,
        ...(cls.same ? { same: true as const } : {}),
      }));
    }),
  );
  return inputItems;
}

let intents: Map<string, ClassIntent> | undefined;
let sameItems: Set<string> | undefined;

/** Whether an item is an open class read as the same value written another way (classes.ts `same`). */
export function isSameValueItem(item: string): boolean {
  sameItems ??= new Set(
    allInputItems()
      .filter((entry) => entry.same)
      .map((entry) => entry.id),
  );
  return sameItems.has(item);
}

/** An input item's intent (undefined for a cell or an unknown id). */
export function intentOf(item: string): ClassIntent | undefined {
  intents ??= new Map(allInputItems().map((entry) => [entry.id, entry.intent]));
  return intents.get(item);
}

/** Inputs of the spec that have no classes (what the coverage test reports). */
export function inputsWithoutClasses(operations: readonly OperationInfo[] = OPERATIONS): string[] {
  return operations.flatMap((op) =>
    specInputs(op)
      .filter((input) => !classesOf(op, input)?.length)
      .map((input) => `${op.operationId} ${input.name}`),
  );
}
