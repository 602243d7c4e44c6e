import { controlledClock, type ControlledClock, type GuardedApp, startGuardedApp } from './guarded-app.ts';

/** Monday 14 January 2030, 09:00 UTC: when the catalogue of the as-of tests begins. */
export const MONDAY = Date.UTC(2030, 0, 14, 9, 0, 0);
export const HOUR = 3_600_000;

export type MondayCatalogue = {
  readonly clock: ControlledClock;
  readonly service: GuardedApp;
  /** A key that writes pets. */
  readonly shop: string;
  /** A key that reads pets and the past (audit:read). */
  readonly auditor: string;
  readonly rex: number;
  readonly tom: number;
  /** The store position of Tom's creation: Rex and Tom exist, unchanged. */
  readonly positionAfterCreation: string;
};

/**
 * A service whose catalogue has a past to read: Monday 09:00 Rex and Tom arrive; 10:00 Rex is
 * renamed Max and reserved; 11:00 Tom leaves. The clock stands at 11:00.
 */
export async function mondayCatalogue(): Promise<MondayCatalogue> {
  const clock = controlledClock(MONDAY);
  const service = await startGuardedApp({ clock });
  const limits = { plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 } as const;
  const shop = (await service.issueKey(limits)).secret;
  const auditor = (await service.issueKey({ ...limits, scopes: ['pets:read', 'audit:read'] })).secret;
  const create = async (name: string, categoryId: number) =>
    (await service.send(shop, 'POST', '/v1/pets', { name, categoryId, status: 'available' })).json<{
      id: number;
    }>().id;
  const rex = await create('Rex', 1);
  const tom = await create('Tom', 2);
  const history = (await service.send(auditor, 'GET', `/v1/pets/${tom}/history`)).json<
    { position: string }[]
  >();
  const positionAfterCreation = history[0]!.position;
  clock.advance(HOUR);
  await service.send(shop, 'PATCH', `/v1/pets/${rex}`, { name: 'Max', status: 'pending' });
  clock.advance(HOUR);
  await service.send(shop, 'DELETE', `/v1/pets/${tom}`);
  return { clock, service, shop, auditor, rex, tom, positionAfterCreation };
}
