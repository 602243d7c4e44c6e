import type { OutputRef } from '@pothos/core';
import { builder } from './builder.ts';
import { encodeCursor } from './cursor.ts';

/**
 * A page of items (pets, orders, events) as a connection's fields read it. Cursors are encoded only
 * when a client selects them (most list queries ask for nodes alone), and once: graphql-jit reads
 * a field more than once. `keyOf` gives the number a cursor carries: an id, or a revision.
 */
export function connection<T>(
  kind: string,
  items: readonly T[],
  hasNextPage: boolean,
  keyOf: (item: T) => number = (item) => (item as { readonly id: number }).id,
) {
  const edges = items.map((item) => new Edge(kind, item, keyOf));
  return { edges, pageInfo: new PageInfo(edges, hasNextPage) };
}

class Edge<T> {
  readonly node: T;
  readonly #kind: string;
  readonly #keyOf: (item: T) => number;
  #cursor: string | undefined;

  constructor(kind: string, node: T, keyOf: (item: T) => number) {
    this.#kind = kind;
    this.node = node;
    this.#keyOf = keyOf;
  }

  get cursor(): string {
    return (this.#cursor ??= encodeCursor(this.#kind, this.#keyOf(this.node)));
  }
}

class PageInfo {
  readonly hasNextPage: boolean;
  /** Only forward paging is offered. */
  readonly hasPreviousPage = false;
  readonly #edges: readonly { readonly cursor: string }[];

  constructor(edges: readonly { readonly cursor: string }[], hasNextPage: boolean) {
    this.#edges = edges;
    this.hasNextPage = hasNextPage;
  }

  get startCursor(): string | null {
    return this.#edges[0]?.cursor ?? null;
  }

  get endCursor(): string | null {
    return this.#edges.at(-1)?.cursor ?? null;
  }
}

/**
 * A connection type and its edge type, the SDL the relay plugin's `connectionObject` prints, over
 * pages made by `connection`, with every field exposed rather than resolved: graphql-jit reads a
 * field without a resolver inline, where a resolver costs a call, a resolve info and a path per item.
 */
export function exposedConnection<T>(node: OutputRef<T>, names: { connection: string; edge: string }) {
  const edge = builder.objectRef<Edge<T>>(names.edge).implement({
    fields: (t) => ({
      cursor: t.exposeString('cursor'),
      node: t.expose('node', { type: node }),
    }),
  });
  return builder.objectRef<ReturnType<typeof connection<T>>>(names.connection).implement({
    fields: (t) => ({
      edges: t.expose('edges', { type: [edge] }),
      pageInfo: t.expose('pageInfo', { type: builder.pageInfoRef() }),
    }),
  });
}
