import { type FieldNode, type FragmentDefinitionNode, Kind, type SelectionSetNode } from 'graphql';

/**
 * Distinct response keys among the root fields (those named `only`, or that `only` picks, if
 * given), as graphql-js collects them: fields with the same alias (or name) merge into one and run
 * once, so they count once.
 */
export function countRootFields(
  selectionSet: SelectionSetNode,
  fragment: (name: string) => FragmentDefinitionNode | null | undefined,
  only?: string | ((field: FieldNode) => boolean),
): number {
  const counted = (field: FieldNode): boolean =>
    only === undefined || (typeof only === 'string' ? field.name.value === only : only(field));
  const keys = new Set<string>();
  const visited = new Set<string>();
  const collect = (set: SelectionSetNode): void => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const name = selection.name.value;
        if (name !== '__typename' && counted(selection)) keys.add(selection.alias?.value ?? name);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        collect(selection.selectionSet);
      } else if (!visited.has(selection.name.value)) {
        visited.add(selection.name.value); // and a cycle of fragments is refused by validation anyway
        const definition = fragment(selection.name.value);
        if (definition) collect(definition.selectionSet);
      }
    }
  };
  collect(selectionSet);
  return keys.size;
}
