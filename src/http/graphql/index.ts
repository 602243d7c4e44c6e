import { builder } from './builder.ts';
import './types/safe-int.ts';
import './types/pet-status.ts';
import './types/errors.ts';
import './types/pet.ts';
import './types/new-pet.ts';
import './types/pet-changes.ts';
import './types/order.ts';
import './types/history.ts';
import './types/audit-events.ts';
import './types/projections.ts';

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});

/** The whole schema, assembled from one module per type. */
export const schema = builder.toSchema({ sortSchema: true });
