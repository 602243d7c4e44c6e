import type { PetsPage } from '../../application/index.ts';
import type { VersionedPet } from '../../domain/pets.ts';
import { encodeCursor } from './cursor.ts';

/**
 * A page of pets as the PetConnection fields read it. Cursors are encoded only when a client
 * selects them (most list queries ask for nodes alone), and once: graphql-jit reads a field more
 * than once.
 */
export function petConnection(page: PetsPage) {
  const edges = page.pets.map((pet) => new PetEdge(pet));
  return { edges, pageInfo: new PetPageInfo(edges, page.nextAfter !== undefined) };
}

class PetEdge {
  readonly node: VersionedPet;
  #cursor: string | undefined;

  constructor(node: VersionedPet) {
    this.node = node;
  }

  get cursor(): string {
    return (this.#cursor ??= encodeCursor(this.node.id));
  }
}

class PetPageInfo {
  readonly hasNextPage: boolean;
  /** Only forward paging is offered. */
  readonly hasPreviousPage = false;
  readonly #edges: readonly PetEdge[];

  constructor(edges: readonly PetEdge[], hasNextPage: boolean) {
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
