import { type DocumentNode, getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Metrics } from './registry.ts';

/** Operation names are the client's to choose: past this many, new names count as `(other)`. */
const MAX_OPERATION_NAMES = 100;
/**
 * And so is their length (GraphQL sets no bound): a longer name counts as `(other)`, so that a
 * client cannot grow every scrape by its names, nor pass a scraper's `label_value_length_limit`,
 * which fails the whole scrape.
 */
const MAX_OPERATION_NAME_LENGTH = 100;

/** Counts every GraphQL operation that runs (queries and mutations, and subscriptions when they start). */
export function graphqlMetrics(metrics: Metrics): Plugin {
  const names = new Set<string>();
  const count = (document: DocumentNode, operationName: string | null | undefined) => {
    const operation = getOperationAST(document, operationName ?? undefined);
    const name = operation?.name?.value ?? '';
    if (!names.has(name) && names.size < MAX_OPERATION_NAMES && name.length <= MAX_OPERATION_NAME_LENGTH)
      names.add(name);
    metrics.graphqlOperations.inc({
      operation_name: names.has(name) ? name : '(other)',
      operation_type: operation?.operation ?? 'unknown',
    });
  };
  return {
    onExecute: ({ args }) => count(args.document, args.operationName),
    onSubscribe: ({ args }) => count(args.document, args.operationName),
  };
}
