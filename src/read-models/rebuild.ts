import type { Logger } from 'pino';
import type { EventStore } from '../application/ports/event-store.ts';
import type { RebuildStatus } from '../application/ports/read-models.ts';
import { type FoldProgress, foldBeside } from './fold-beside.ts';
import type { ReadModel } from './read-model.ts';

/**
 * A rebuild without downtime: the projection is folded afresh from position 0 beside the live read
 * model, which keeps serving and following the store; once the new one has caught up, it replaces
 * the old in one synchronous step (`ReadModel.replaceWith`). Memory holds both meanwhile.
 */
export class Rebuild {
  readonly done: Promise<void>;
  readonly #abort = new AbortController();
  #status: RebuildStatus;

  constructor(
    live: ReadModel<unknown>,
    deps: {
      readonly store: EventStore;
      readonly waitFor: (position: bigint) => Promise<void>;
      readonly logger: Logger;
      readonly eventsPerTurn?: number;
    },
  ) {
    const { name } = live.projection;
    const startedAtMs = Date.now();
    this.#status = {
      state: 'running',
      ...progressFigures({ events: 0, position: undefined, target: live.checkpoint, startedAtMs }),
    };
    deps.logger.info(
      { event: 'read_model.rebuild', projection: name },
      'rebuilding the read model beside the live one',
    );
    this.done = foldBeside({
      store: deps.store,
      live,
      waitFor: deps.waitFor,
      logger: deps.logger,
      signal: this.#abort.signal,
      eventsPerTurn: deps.eventsPerTurn,
      onProgress: (progress) => (this.#status = { state: 'running', ...progressFigures(progress) }),
      caughtUp: (fresh) => {
        live.replaceWith(fresh);
        this.#status = {
          ...this.#status,
          ...progressFigures({
            events: this.#status.events,
            position: fresh.checkpoint,
            target: fresh.checkpoint,
            startedAtMs,
          }),
          state: 'done',
          etaSeconds: 0,
          finishedAt: new Date().toISOString(),
        };
        deps.logger.info({ projection: name, ...this.#status }, 'rebuilt read model swapped in');
      },
    }).catch((error: unknown) => {
      this.#status = {
        ...this.#status,
        state: 'failed',
        error: String(error),
        finishedAt: new Date().toISOString(),
      };
      if (!this.#abort.signal.aborted)
        deps.logger.error({ err: error, projection: name }, 'the rebuild failed');
    });
  }

  get status(): RebuildStatus {
    return this.#status;
  }

  get running(): boolean {
    return this.#status.state === 'running';
  }

  /** Stops folding; the live read model stays as it is. */
  async abort(): Promise<void> {
    this.#abort.abort(new Error('The rebuild was stopped.'));
    await this.done;
  }
}

/** Events folded, where the fold stands, its rate and an estimate of the time left. */
export function progressFigures(progress: FoldProgress) {
  const seconds = Math.max((Date.now() - progress.startedAtMs) / 1000, 0.001);
  const share =
    progress.position === undefined || progress.target === undefined || progress.target === 0n
      ? 0
      : Number(progress.position) / Number(progress.target);
  return {
    events: progress.events,
    position: progress.position?.toString() ?? null,
    target: progress.target?.toString() ?? null,
    eventsPerSecond: Math.round(progress.events / seconds),
    etaSeconds: share > 0 ? Math.max(0, Math.round((seconds * (1 - share)) / share)) : null,
    startedAt: new Date(progress.startedAtMs).toISOString(),
  };
}
