import type { OutputRef } from '@pothos/core';
import { builder } from './builder.ts';
import { encodeCursor } from './cursor.ts';

/**
 * A page of items (pets, orders, events) as a connection's fields read it. Cursors are encoded only
 * when a client selects them (most list queries ask for nodes alone), and once: graphql-jit reads
 * a field more than once. `keyOf` gives the number a cursor carries: an id, or a revision.
 * `nextAfter`, when given, is where the next page starts, and the end cursor: past the last edge
 * when a scan bound left the page short, even empty (as-of pages of pets).
 */
export function connection<T>(
  kind: string,
  items: readonly T[],
  hasNextPage: boolean,
  keyOf: (item: T) => number = (item) => (item as { readonly id: number }).id,
  nextAfter?: number,
) {
  const endCursor = nextAfter === undefined ? undefined : encodeCursor(kind, nextAfter);
  return page(items, hasNextPage, (item) => encodeCursor(kind, keyOf(item)), endCursor);
}

/**
 * A page of the audit feed, whose cursors are the events' store positions: what REST's `after`,
 * `Last-Event-ID` and a subscription's `after` take. `nextAfter`, where the next page starts, is
 * the end cursor: past the last edge when a filter left the page short, even empty.
 */
export function positionConnection<T extends { readonly position: string }>(
  items: readonly T[],
  nextAfter: string | undefined,
) {
  return page(items, nextAfter !== undefined, (item) => item.position, nextAfter);
}

function page<T>(
  items: readonly T[],
  hasNextPage: boolean,
  cursorOf: (item: T) => string,
  endCursor?: string,
) {
  const edges = items.map((item) => new Edge(item, cursorOf));
  return { edges, pageInfo: new PageInfo(edges, hasNextPage, endCursor) };
}

class Edge<T> {
  readonly node: T;
  readonly #cursorOf: (item: T) => string;
  #cursor: string | undefined;

  constructor(node: T, cursorOf: (item: T) => string) {
    this.node = node;
    this.#cursorOf = cursorOf;
  }

  get cursor(): string {
    return (this.#cursor ??= this.#cursorOf(this.node));
  }
}

class PageInfo {
  readonly hasNextPage: boolean;
  /** Only forward paging is offered. */
  readonly hasPreviousPage = false;
  readonly #edges: readonly { readonly cursor: string }[];
  readonly #endCursor: string | undefined;

  constructor(edges: readonly { readonly cursor: string }[], hasNextPage: boolean, endCursor?: string) {
    this.#edges = edges;
    this.hasNextPage = hasNextPage;
    this.#endCursor = endCursor;
  }

  get startCursor(): string | null {
    return this.#edges[0]?.cursor ?? null;
  }

  get endCursor(): string | null {
    return this.#endCursor ?? this.#edges.at(-1)?.cursor ?? null;
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
  return builder.objectRef<ReturnType<typeof page<T>>>(names.connection).implement({
    fields: (t) => ({
      edges: t.expose('edges', { type: [edge] }),
      pageInfo: t.expose('pageInfo', { type: builder.pageInfoRef() }),
    }),
  });
}
