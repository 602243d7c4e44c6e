import type {
  Comparison as ComparisonShape,
  ProjectionStatus as ProjectionStatusShape,
  RebuildStatus as RebuildStatusShape,
  VerifyReport as VerifyReportShape,
} from '../../../application/index.ts';
import { NotFoundError } from '../../../shared/errors.ts';
import { builder } from '../builder.ts';
import { SafeInt } from './safe-int.ts';

/**
 * REST's admin endpoints (scope admin), through the same operations: `projections`, the status of
 * this server's read models, and the mutations `rebuildProjection(name)` and
 * `verifyProjection(name)`. Each server answers for its own read models, as over REST.
 */

const ADMIN = { scope: 'admin' } as const;

const RebuildState = builder.enumType('RebuildState', {
  values: ['running', 'done', 'failed'] as const,
});

const RebuildStatus = builder.objectRef<RebuildStatusShape>('RebuildStatus').implement({
  description:
    'A rebuild of a read model beside the live one, which keeps serving until the new one has caught up ' +
    'and is swapped in.',
  fields: (t) => ({
    state: t.field({ type: RebuildState, resolve: (rebuild) => rebuild.state }),
    events: t.expose('events', {
      type: SafeInt,
      description: 'Events folded so far (a store may hold more than 2^31).',
    }),
    position: t.exposeString('position', {
      nullable: true,
      description: 'Position the new read model includes (a decimal string).',
    }),
    target: t.exposeString('target', {
      nullable: true,
      description: 'Position of the live read model it is catching up with.',
    }),
    eventsPerSecond: t.exposeInt('eventsPerSecond'),
    etaSeconds: t.exposeInt('etaSeconds', {
      nullable: true,
      description: 'Estimated seconds left; null before the first batch.',
    }),
    startedAt: t.exposeString('startedAt', { description: 'RFC 3339.' }),
    finishedAt: t.string({ nullable: true, resolve: (rebuild) => rebuild.finishedAt ?? null }),
    error: t.string({ nullable: true, resolve: (rebuild) => rebuild.error ?? null }),
  }),
});

const ProjectionLag = builder.objectRef<ProjectionStatusShape['lag']>('ProjectionLag').implement({
  description: 'How far the read model is behind the store.',
  fields: (t) => ({
    events: t.exposeInt('events', { description: 'Events in the store after the checkpoint.' }),
    capped: t.exposeBoolean('capped', {
      description: 'True when there are more than `events` (counting stops at 100,000).',
    }),
    seconds: t.exposeFloat('seconds', {
      description: 'Age of the oldest event not applied yet; 0 when none.',
    }),
  }),
});

type SnapshotShape = NonNullable<ProjectionStatusShape['snapshot']>;

const ProjectionSnapshot = builder.objectRef<SnapshotShape>('ProjectionSnapshot').implement({
  description: 'The snapshot file the read model is saved to.',
  fields: (t) => ({
    version: t.exposeInt('version'),
    checkpoint: t.exposeString('checkpoint'),
    savedAt: t.exposeString('savedAt', { description: 'RFC 3339.' }),
    ageSeconds: t.exposeInt('ageSeconds'),
  }),
});

const UnknownEventType = builder
  .objectRef<ProjectionStatusShape['unknownEvents'][number]>('UnknownEventType')
  .implement({
    description: 'A type of event this release does not know, which a newer release wrote.',
    fields: (t) => ({
      type: t.exposeString('type'),
      firstPosition: t.exposeString('firstPosition', {
        description: 'Position of the first such event the read model passed over (a decimal string).',
      }),
    }),
  });

const ProjectionStatus = builder.objectRef<ProjectionStatusShape>('ProjectionStatus').implement({
  description: 'One read model of this server: REST’s GET /v1/admin/projections, item for item.',
  fields: (t) => ({
    name: t.exposeString('name'),
    version: t.exposeInt('version', { description: 'The projection’s code version.' }),
    checkpoint: t.exposeString('checkpoint', {
      nullable: true,
      description: 'Position of the last event the read model includes; null before any.',
    }),
    lag: t.expose('lag', { type: ProjectionLag }),
    snapshot: t.expose('snapshot', {
      type: ProjectionSnapshot,
      nullable: true,
      description:
        'The snapshot file; null when there is none, or when it has no header this server reads (see unreadableSnapshot).',
    }),
    unreadableSnapshot: t.exposeString('unreadableSnapshot', {
      nullable: true,
      description:
        'Why the snapshot file there has no header this server reads (damaged, truncated, not a snapshot), which a start ' +
        'refuses it for; null when there is no file or its header reads.',
    }),
    interimFromVersion: t.exposeInt('interimFromVersion', {
      nullable: true,
      description:
        'While a new projection version is rebuilt at start, the earlier version whose read model is served meanwhile.',
    }),
    unknownEvents: t.expose('unknownEvents', {
      type: [UnknownEventType],
      description:
        'Types of event this release does not know that the read model passed over; empty when none. ' +
        'While any, the read model saves no snapshot and the server is not ready.',
    }),
    rebuild: t.expose('rebuild', {
      type: RebuildStatus,
      nullable: true,
      description: 'The last rebuild in this process, if any.',
    }),
  }),
});

const ComparisonResult = builder.enumType('ComparisonResult', {
  description: 'REST’s `result`, with `not compared` written `not_compared`.',
  values: {
    same: { value: 'same' },
    different: { value: 'different', description: 'The first difference is in path, expected and actual.' },
    not_compared: {
      value: 'not compared',
      description: 'No snapshot, another version, or a snapshot ahead of this server: see reason.',
    },
    refused: {
      value: 'refused',
      description: 'A snapshot file that does not check out (truncated, corrupted, foreign): see reason.',
    },
  } as const,
});

const optional = (
  comparison: ComparisonShape,
  field: 'checkpoint' | 'path' | 'expected' | 'actual' | 'reason',
) => (comparison as Partial<Record<typeof field, string | null>>)[field] ?? null;

const Comparison = builder.objectRef<ComparisonShape>('Comparison').implement({
  description: 'A fresh fold of every event compared with the live read model or the snapshot.',
  fields: (t) => ({
    result: t.field({ type: ComparisonResult, resolve: (comparison) => comparison.result }),
    checkpoint: t.string({
      nullable: true,
      description: 'The position both were at.',
      resolve: (comparison) => optional(comparison, 'checkpoint'),
    }),
    path: t.string({
      nullable: true,
      description: 'Where the first difference is: a path into the snapshot’s parts.',
      resolve: (comparison) => optional(comparison, 'path'),
    }),
    expected: t.string({
      nullable: true,
      description: 'The fresh fold’s value there.',
      resolve: (comparison) => optional(comparison, 'expected'),
    }),
    actual: t.string({
      nullable: true,
      description: 'The other’s value there.',
      resolve: (comparison) => optional(comparison, 'actual'),
    }),
    reason: t.string({ nullable: true, resolve: (comparison) => optional(comparison, 'reason') }),
  }),
});

const VerifyReport = builder.objectRef<VerifyReportShape>('VerifyReport').implement({
  description: 'What each comparison of a verification found.',
  fields: (t) => ({
    name: t.exposeString('name'),
    version: t.exposeInt('version'),
    live: t.expose('live', { type: Comparison }),
    snapshot: t.expose('snapshot', { type: Comparison }),
  }),
});

const NAME = 'A projection: `pet-list`, `api-keys` or `orders`.';

builder.queryField('projections', (t) =>
  t.field({
    type: [ProjectionStatus],
    nullable: true,
    authScopes: ADMIN,
    description:
      'This server’s read models: version, checkpoint, lag, snapshot, last rebuild. REST’s GET ' +
      '/v1/admin/projections.',
    resolve: (_root, _args, { application }) => application.readModels.status(),
  }),
);

builder.mutationFields((t) => ({
  rebuildProjection: t.field({
    type: RebuildStatus,
    nullable: true,
    authScopes: ADMIN,
    description:
      'Starts rebuilding a read model from the first event beside the live one, which keeps serving, and ' +
      'answers at once; while a rebuild of it runs, answers that one. Follow it in `projections`. REST’s ' +
      'POST /v1/admin/projections/{name}/rebuild.',
    errors: { types: [NotFoundError], union: { name: 'RebuildProjectionResult' } },
    args: { name: t.arg.string({ required: true, description: NAME }) },
    resolve: (_root, { name }, { application }) => application.readModels.rebuild(name),
  }),
  verifyProjection: t.field({
    type: VerifyReport,
    nullable: true,
    authScopes: ADMIN,
    description:
      'Folds every event afresh and compares the fold with the snapshot and with the live read model; ' +
      'answers once the fold has caught up. REST’s POST /v1/admin/projections/{name}/verify.',
    errors: { types: [NotFoundError], union: { name: 'VerifyProjectionResult' } },
    args: { name: t.arg.string({ required: true, description: NAME }) },
    resolve: (_root, { name }, { application }) => application.readModels.verify(name),
  }),
}));
