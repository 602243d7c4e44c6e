import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApiKey } from './api-key.ts';
import type { BaselineBodies, BodyName } from './baseline-server.ts';
import { type LagFigures, measureCrossProcessLag } from './lag.ts';
import { combineRuns, type LoadResult, pairedRatio, type PairedRatio, runLoad } from './load.ts';
import type { Machine } from './machine.ts';
import { httpScenarios, NEW_PET_BODY, RENAME_BODY, type HttpScenario } from './scenarios/http.ts';
import { seedDataDir } from './seed.ts';
import { petstoreEnv, ROOT, startBaseline, startPetstore, waitForTemporalIndex } from './servers.ts';
import { type StealFigures, stealOn, watchSteal } from './steal.ts';

export type HttpFigure = {
  readonly scenario: HttpScenario;
  readonly petstore: LoadResult;
  readonly baseline: LoadResult;
  readonly ratio: PairedRatio;
  /** The ceiling server (the same bytes with the pet store's headers) against the baseline. */
  readonly ceiling?: { readonly run: LoadResult; readonly ratio: PairedRatio } | undefined;
  /** CPU steal on the server core over the scenario's rounds, both sides (see steal.ts). */
  readonly steal: StealFigures;
};

export type HttpRun = {
  readonly figures: HttpFigure[];
  readonly authenticated: boolean;
  /** Read lag between two API processes on one store; undefined when only some scenarios ran. */
  readonly lag: LagFigures | undefined;
  /** Why the GraphQL scenario is missing, when it is. */
  readonly graphqlMissing: string | undefined;
};

export type HttpOptions = {
  readonly petCount: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
  /** The measured time is split into this many rounds, alternating baseline and pet store. */
  readonly rounds: number;
  readonly lagSamples: number;
  /** Runs only the scenarios whose name contains this, and skips the lag figure. */
  readonly scenario?: string | undefined;
  readonly log: (line: string) => void;
};

/** The list query the GraphQL scenario sends (schema/schema.graphql). */
export const GRAPHQL_LIST_QUERY = '{ pets(first: 20) { edges { node { id name categoryId status } } } }';

/**
 * Seeds a fresh data directory, starts the pet store and the baseline (each its own process on the
 * server core), and runs every scenario against both, in alternating rounds, one scenario at a time.
 */
export async function runHttpBenchmark(machine: Machine, options: HttpOptions): Promise<HttpRun> {
  const known = httpScenarios({ authorization: '', petCount: 1, graphqlQuery: GRAPHQL_LIST_QUERY });
  if (options.scenario !== undefined && !known.some((scenario) => scenario.name.includes(options.scenario!)))
    throw new Error(
      `no scenario's name contains ${options.scenario}: ${known.map((s) => s.name).join('; ')}`,
    );
  const dataDir = mkdtempSync(path.join(tmpdir(), 'petstore-bench-http-'));
  try {
    await seedDataDir(dataDir, options.petCount);
    const key = await createApiKey(ROOT, petstoreEnv(dataDir, 0));
    const petstore = await startPetstore(machine, dataDir);
    try {
      // Its temporal index catches up with the seeded pets in the background (seconds, on the
      // server's core): measured meanwhile, the first scenario's rounds would share that core with it.
      await waitForTemporalIndex(petstore.url, key.header);
      const graphql = await probeGraphql(petstore.url, key.header);
      const bodies = await captureBodies(petstore.url, key.header, graphql.answer);
      const baseline = await startBaseline(machine, bodies);
      try {
        const scenarios = httpScenarios({
          authorization: key.header,
          petCount: options.petCount,
          graphqlQuery: graphql.answer === undefined ? undefined : GRAPHQL_LIST_QUERY,
        }).filter((scenario) => options.scenario === undefined || scenario.name.includes(options.scenario));
        if (scenarios.length === 0)
          throw new Error(
            `no scenario to run: ${options.scenario} (${graphql.missing ?? 'no such scenario'})`,
          );
        const figures: HttpFigure[] = [];
        for (const scenario of scenarios) {
          options.log(`http: ${scenario.name}`);
          const load = { connections: scenario.connections, requests: scenario.requests };
          const warmup = { ...load, durationSeconds: options.warmupSeconds };
          await runLoad(baseline.url, warmup);
          if (scenario.ceiling === true) await runLoad(baseline.ceilingUrl, warmup);
          await runLoad(petstore.url, warmup);
          // Alternating rounds: a neighbour's burst of load slows both sides alike.
          const round = { ...load, durationSeconds: options.seconds / options.rounds };
          const baselineRuns: LoadResult[] = [];
          const ceilingRuns: LoadResult[] = [];
          const petstoreRuns: LoadResult[] = [];
          const steal = watchSteal();
          for (let i = 0; i < options.rounds; i++) {
            const baselineRun = await runLoad(baseline.url, round);
            const ceilingRun =
              scenario.ceiling === true ? await runLoad(baseline.ceilingUrl, round) : undefined;
            const petstoreRun = await runLoad(petstore.url, round);
            baselineRuns.push(baselineRun);
            if (ceilingRun !== undefined) ceilingRuns.push(ceilingRun);
            petstoreRuns.push(petstoreRun);
            const ceilingNote =
              ceilingRun === undefined ? '' : `, ceiling ${Math.round(ceilingRun.requestsPerSecond)} req/s`;
            options.log(
              `http:   round ${i + 1}: baseline ${Math.round(baselineRun.requestsPerSecond)} req/s${ceilingNote}, pet store ${Math.round(petstoreRun.requestsPerSecond)} req/s`,
            );
          }
          const stolen = stealOn(steal.stop(), machine.serverCpu);
          figures.push({
            scenario,
            petstore: combineRuns(petstoreRuns),
            baseline: combineRuns(baselineRuns),
            ratio: pairedRatio(petstoreRuns, baselineRuns),
            ceiling:
              ceilingRuns.length === 0
                ? undefined
                : { run: combineRuns(ceilingRuns), ratio: pairedRatio(ceilingRuns, baselineRuns) },
            steal: stolen,
          });
        }
        if (options.scenario !== undefined)
          return {
            figures,
            lag: undefined,
            authenticated: key.authenticated,
            graphqlMissing: graphql.missing,
          };
        options.log('http: projection lag between two API processes');
        const reader = await startPetstore(machine, dataDir);
        try {
          const lag = await measureCrossProcessLag(petstore.url, reader.url, key.header, options.lagSamples);
          return { figures, lag, authenticated: key.authenticated, graphqlMissing: graphql.missing };
        } finally {
          await reader.process.stop();
        }
      } finally {
        await baseline.process.stop();
      }
    } finally {
      await petstore.process.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function captureBodies(
  url: string,
  authorization: string,
  graphql: Answer | undefined,
): Promise<BaselineBodies> {
  const headers: Partial<Record<BodyName, Record<string, string>>> = {};
  const get = async (name: BodyName, pathname: string) => {
    const response = await send(url, pathname, { headers: { authorization } });
    headers[name] = response.headers;
    return response.body;
  };
  const created = await send(url, '/v1/pets', {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: NEW_PET_BODY,
  });
  const renamed = await send(url, '/v1/pets/1', {
    method: 'PATCH',
    headers: { authorization, 'content-type': 'application/json' },
    body: RENAME_BODY,
  });
  const ordered = await send(url, '/v1/store/orders', {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ petId: 3 }),
  });
  const orderId = (JSON.parse(ordered.body) as { id: number }).id;
  const cancelled = await send(url, `/v1/store/orders/${orderId}/cancel`, {
    method: 'POST',
    headers: { authorization },
  });
  if (graphql !== undefined) headers.graphql = graphql.headers;
  return {
    renamed: renamed.body,
    ordered: ordered.body,
    cancelled: cancelled.body,
    list20: await get('list20', '/v1/pets?limit=20'),
    listAvailable100: await get('listAvailable100', '/v1/pets?status=available&limit=100'),
    pet: await get('pet', '/v1/pets/1'),
    history: await get('history', '/v1/pets/2/history'),
    created: created.body,
    graphql: graphql?.body ?? '{}',
    headers,
  };
}

/** Headers every HTTP server writes of its own accord, which the ceiling server must not send twice. */
const FRAMING_HEADERS = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive']);

/** A response of the pet store: its body, and its headers as the ceiling server replays them. */
type Answer = { readonly body: string; readonly headers: Record<string, string> };

async function send(url: string, pathname: string, init: RequestInit): Promise<Answer> {
  const response = await fetch(new URL(pathname, url), init);
  const body = await response.text();
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${pathname}: ${response.status} ${body}`);
  return { body, headers: ceilingHeaders(response) };
}

function ceilingHeaders(response: Response): Record<string, string> {
  return Object.fromEntries([...response.headers].filter(([name]) => !FRAMING_HEADERS.has(name)));
}

async function probeGraphql(
  url: string,
  authorization: string,
): Promise<{ answer?: Answer; missing?: string }> {
  if (!existsSync(path.join(ROOT, 'src/http/graphql')))
    return { missing: 'src/http/graphql does not exist yet' };
  const response = await fetch(new URL('/graphql', url), {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ query: GRAPHQL_LIST_QUERY }),
  });
  const body = await response.text();
  if (!response.ok || body.includes('"errors"'))
    return { missing: `POST /graphql answered ${response.status}: ${body.slice(0, 200)}` };
  return { answer: { body, headers: ceilingHeaders(response) } };
}
