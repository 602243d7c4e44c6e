import { encodeCursor } from './cursor.ts';

/**
 * A page of items (pets, orders) as a connection's fields read it. Cursors are encoded only when a
 * client selects them (most list queries ask for nodes alone), and once: graphql-jit reads a field
 * more than once.
 */
export function connection<T extends { readonly id: number }>(
  kind: string,
  items: readonly T[],
  hasNextPage: boolean,
) {
  const edges = items.map((item) => new Edge(kind, item));
  return { edges, pageInfo: new PageInfo(edges, hasNextPage) };
}

class Edge<T extends { readonly id: number }> {
  readonly node: T;
  readonly #kind: string;
  #cursor: string | undefined;

  constructor(kind: string, node: T) {
    this.#kind = kind;
    this.node = node;
  }

  get cursor(): string {
    return (this.#cursor ??= encodeCursor(this.#kind, this.node.id));
  }
}

class PageInfo {
  readonly hasNextPage: boolean;
  /** Only forward paging is offered. */
  readonly hasPreviousPage = false;
  readonly #edges: readonly Edge<{ readonly id: number }>[];

  constructor(edges: readonly Edge<{ readonly id: number }>[], hasNextPage: boolean) {
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
