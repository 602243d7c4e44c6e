import {
  type ASTNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  Kind,
  type OperationDefinitionNode,
  type ValueNode,
} from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';

/**
 * The cost limit. graphql-armor's model and weights (a leaf costs 1, a field with a selection
 * 2 plus 1.5 times its children's cost, a `first` or `last` multiplies its field's cost), which
 * armor applies at validation, where variables are unknown: `pets(first: $n)` counted as one
 * item. Here the cost is taken when the operation runs, with the list size read wherever the
 * client gave it: in the document, in a variable, or as a variable's default. An omitted size
 * counts as 1 (a page then holds at most the default 20).
 */

const WEIGHTS = Object.freeze({ leaf: 1, object: 2, depthFactor: 1.5 });
const LIST_SIZE_ARGUMENTS = new Set(['first', 'last']);

export function costLimit(maxCost: number): Plugin {
  const refusal = (args: CostedArgs) => {
    const cost = Math.ceil(operationCost(args.document, args.operationName, args.variableValues));
    if (cost <= maxCost) return undefined;
    return {
      errors: [
        createGraphQLError(`Query cost ${cost} exceeds the limit of ${maxCost}.`, {
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400, spec: true } },
        }),
      ],
    };
  };
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const refused = refusal(args);
      if (refused !== undefined) setResultAndStopExecution(refused);
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const refused = refusal(args);
      if (refused !== undefined) setResultAndStopExecution(refused);
    },
  };
}

type CostedArgs = {
  document: DocumentNode;
  operationName?: string | null | undefined;
  variableValues?: Readonly<Record<string, unknown>> | null | undefined;
};

/** The cost of the operation that runs (the named one, or the document's only one). */
export function operationCost(
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Readonly<Record<string, unknown>> | null | undefined,
): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  let operation: OperationDefinitionNode | undefined;
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    else if (
      definition.kind === Kind.OPERATION_DEFINITION &&
      (operationName == null || definition.name?.value === operationName)
    )
      operation ??= definition;
  }
  if (operation === undefined) return 0;
  const sizes = listSizeReader(operation, variables ?? {});
  const fragmentCosts = new Map<string, number>();

  const cost = (node: ASTNode): number => {
    if (node.kind === Kind.FIELD && node.name.value === '__schema') return 0;
    if (node.kind === Kind.FRAGMENT_SPREAD) {
      const name = node.name.value;
      if (!fragmentCosts.has(name)) {
        const fragment = fragments.get(name);
        fragmentCosts.set(name, 0); // validation refuses cycles; this keeps a cycle from recursing anyway
        fragmentCosts.set(name, fragment === undefined ? 0 : cost(fragment));
      }
      return WEIGHTS.leaf + WEIGHTS.depthFactor * fragmentCosts.get(name)!;
    }
    if (!('selectionSet' in node) || node.selectionSet === undefined) return WEIGHTS.leaf;
    let total = WEIGHTS.object;
    for (const child of node.selectionSet.selections) total += WEIGHTS.depthFactor * cost(child);
    return node.kind === Kind.FIELD ? total * sizes(node.arguments ?? []) : total;
  };

  return operation.selectionSet.selections.reduce((sum, selection) => sum + cost(selection), 0);
}

/** The list size a field's `first` or `last` asks for; 1 when none is given or it is not a positive integer. */
function listSizeReader(operation: OperationDefinitionNode, variables: Readonly<Record<string, unknown>>) {
  const defaults = new Map<string, ValueNode>();
  for (const definition of operation.variableDefinitions ?? []) {
    if (definition.defaultValue !== undefined)
      defaults.set(definition.variable.name.value, definition.defaultValue);
  }
  const valueOf = (value: ValueNode): unknown => {
    if (value.kind === Kind.INT) return Number(value.value);
    if (value.kind !== Kind.VARIABLE) return undefined;
    const name = value.name.value;
    if (Object.hasOwn(variables, name)) return variables[name];
    const fallback = defaults.get(name);
    return fallback === undefined ? undefined : valueOf(fallback);
  };
  return (args: readonly { name: { value: string }; value: ValueNode }[]): number => {
    const size = args.find((argument) => LIST_SIZE_ARGUMENTS.has(argument.name.value));
    const value = size === undefined ? undefined : valueOf(size.value);
    return typeof value === 'number' && Number.isSafeInteger(value) && value > 1 ? value : 1;
  };
}
