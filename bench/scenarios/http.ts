import type { Request } from 'autocannon';

/**
 * The HTTP scenarios. Each sends the same requests to the pet store and to the baseline; the
 * baseline answers every one of them with the bytes the pet store gave for it.
 */

export type HttpScenario = {
  readonly name: string;
  readonly connections: number;
  /** Fraction of the baseline's requests per second the pet store must reach, if there is a target. */
  readonly minRatio?: number;
  /** Upper bound on the pet store's p99 latency, if there is one. */
  readonly maxP99Ms?: number;
  /**
   * Also measure the ceiling: the baseline's bytes with the pet store's response headers (see
   * bench/baseline-server.ts), to tell what the interface's headers alone cost on this stack.
   */
  readonly ceiling?: boolean;
  readonly requests: Request[];
};

export type ScenarioInputs = {
  readonly authorization: string;
  /** Ids 1..petCount exist; the by-id requests walk through them. */
  readonly petCount: number;
  /** Undefined while the service has no GraphQL endpoint: the scenario is then left out. */
  readonly graphqlQuery: string | undefined;
};

export const NEW_PET_BODY = JSON.stringify({ name: 'Benchmark Bella', categoryId: 3, status: 'available' });
export const RENAME_BODY = JSON.stringify({ name: 'Renamed' });

/** Connections of every scenario; the durable-write target is stated for 64 concurrent writers. */
const CONNECTIONS = 64;

export function httpScenarios(inputs: ScenarioInputs): HttpScenario[] {
  const auth = { authorization: inputs.authorization };
  const json = { ...auth, 'content-type': 'application/json' };
  const list20: Request = { method: 'GET', path: '/v1/pets?limit=20', headers: auth };
  const listAvailable100: Request = {
    method: 'GET',
    path: '/v1/pets?status=available&limit=100',
    headers: auth,
  };
  const create: Request = { method: 'POST', path: '/v1/pets', headers: json, body: NEW_PET_BODY };
  let nextId = 0;
  const byId: Request = {
    method: 'GET',
    path: '/v1/pets/1',
    headers: auth,
    // Walks through the seeded pets, so that lookups are not all one hot entry.
    setupRequest: (request) => ({ ...request, path: `/v1/pets/${(nextId++ % inputs.petCount) + 1}` }),
  };
  let nextHistory = 0;
  const history: Request = {
    method: 'GET',
    path: '/v1/pets/2/history',
    headers: auth,
    // Pets from 2 on, which hold one event each (pet 1 is renamed before the run), walked through.
    setupRequest: (request) => ({
      ...request,
      path: `/v1/pets/${(nextHistory++ % (inputs.petCount - 1)) + 2}/history`,
    }),
  };
  let nextRename = 0;
  const rename: Request = {
    method: 'PATCH',
    path: '/v1/pets/1',
    headers: json,
    body: RENAME_BODY,
    // A new name every time, so that every PATCH records an event (a patch that changes nothing
    // records nothing), on pets walked through like the by-id reads.
    setupRequest: (request) => {
      const n = nextRename++;
      return {
        ...request,
        path: `/v1/pets/${(n % inputs.petCount) + 1}`,
        body: JSON.stringify({ name: `Renamed ${n}` }),
      };
    },
  };
  // Orders cycle over the available pets (every third id, but not the few without a status: see
  // bench/seed.ts), each cancelled right after it is placed, so the pets never run out. A run that
  // ends between the two leaves its order open: that pet is skipped from then on.
  let nextOrder = 0;
  const held = new Set<number>();
  const availableIds = Array.from({ length: inputs.petCount }, (_, i) => i + 1).filter(
    (id) => id % 3 === 0 && id % 10 !== 9,
  );
  const nextAvailable = () => {
    for (;;) {
      const id = availableIds[nextOrder++ % availableIds.length]!;
      if (!held.has(id)) return id;
    }
  };
  const placeOrder: Request = {
    method: 'POST',
    path: '/v1/store/orders',
    headers: json,
    body: JSON.stringify({ petId: availableIds[0] }),
    setupRequest: (request, context) => {
      const petId = nextAvailable();
      held.add(petId);
      context.petId = petId;
      return { ...request, body: JSON.stringify({ petId }) };
    },
    onResponse: (status, body, context) => {
      context.orderId = status === 201 ? (JSON.parse(body) as { id: number }).id : undefined;
    },
  };
  const cancelOrder: Request = {
    method: 'POST',
    path: '/v1/store/orders/1/cancel',
    headers: auth,
    setupRequest: (request, context) => ({
      ...request,
      path: `/v1/store/orders/${String(context.orderId)}/cancel`,
    }),
    onResponse: (status, _body, context) => {
      if (status === 200) held.delete(context.petId as number);
    },
  };
  const scenarios: HttpScenario[] = [
    {
      name: 'GET /v1/pets?limit=20',
      connections: CONNECTIONS,
      minRatio: 0.8,
      ceiling: true,
      requests: [list20],
    },
    {
      name: 'GET /v1/pets?status=available&limit=100',
      connections: CONNECTIONS,
      minRatio: 0.7,
      ceiling: true,
      requests: [listAvailable100],
    },
    {
      name: 'GET /v1/pets/{id}',
      connections: CONNECTIONS,
      minRatio: 0.9,
      ceiling: true,
      requests: [byId],
    },
    // An auditor's read: the pet's events from the store (no target: the first round measures it).
    { name: 'GET /v1/pets/{id}/history', connections: CONNECTIONS, requests: [history] },
    { name: 'POST /v1/pets (durable)', connections: 64, minRatio: 0.5, maxP99Ms: 10, requests: [create] },
    {
      name: 'PATCH /v1/pets/{id} (durable)',
      connections: 64,
      minRatio: 0.4,
      maxP99Ms: 15,
      requests: [rename],
    },
    {
      name: 'POST /v1/store/orders, then cancel (durable)',
      connections: 64,
      minRatio: 0.4,
      maxP99Ms: 15,
      requests: [placeOrder, cancelOrder],
    },
  ];
  if (inputs.graphqlQuery !== undefined) {
    const body = JSON.stringify({ query: inputs.graphqlQuery });
    scenarios.push({
      name: 'GraphQL pets(first: 20)',
      connections: CONNECTIONS,
      minRatio: 0.55,
      ceiling: true,
      requests: [{ method: 'POST', path: '/graphql', headers: json, body }],
    });
  }
  // 90% reads, 10% writes: each connection loops over these ten requests.
  const mixed = [list20, byId, list20, byId, list20, byId, list20, byId, list20, create];
  scenarios.push({
    name: 'mixed 90% read / 10% write',
    connections: CONNECTIONS,
    minRatio: 0.65,
    requests: mixed,
  });
  return scenarios;
}
