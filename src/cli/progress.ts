/** What a rebuild has done, as the server reports it or an offline fold computes it. */
export type ProgressFigures = {
  readonly events: number;
  readonly position: string | null;
  readonly target: string | null;
  readonly eventsPerSecond: number;
  readonly etaSeconds: number | null;
};

const BAR_WIDTH = 30;
/** Without a terminal, a line at most this often (and the last one always). */
const PLAIN_INTERVAL_MS = 1000;

/**
 * Progress on stderr: a bar redrawn in place on a terminal, plain lines otherwise (a log, a pipe,
 * CI), so that stdout keeps only results.
 */
export function progressReporter(stream: NodeJS.WriteStream = process.stderr) {
  let lastPlainAt = 0;
  let lastPlain: string | undefined;
  const plain = (text: string) => {
    lastPlain = text;
    stream.write(`${text}\n`);
  };
  return {
    update(name: string, figures: ProgressFigures): void {
      if (stream.isTTY) {
        stream.write(`\r${bar(name, figures)}\x1b[K`);
        return;
      }
      if (Date.now() - lastPlainAt < PLAIN_INTERVAL_MS) return;
      lastPlainAt = Date.now();
      plain(line(name, figures));
    },
    /** The last figures: a plain line only when it is not the one just printed (a short fold's). */
    done(name: string, figures: ProgressFigures): void {
      if (stream.isTTY) stream.write(`\r${bar(name, figures)}\x1b[K\n`);
      else if (line(name, figures) !== lastPlain) plain(line(name, figures));
    },
  };
}

function share(figures: ProgressFigures): number {
  if (figures.position === null || figures.target === null || figures.target === '0') return 0;
  return Math.min(1, Number(figures.position) / Number(figures.target));
}

function bar(name: string, figures: ProgressFigures): string {
  const filled = Math.round(share(figures) * BAR_WIDTH);
  return `${name} [${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${rest(figures)}`;
}

function line(name: string, figures: ProgressFigures): string {
  return `${name}: ${rest(figures)}`;
}

function rest(figures: ProgressFigures): string {
  const percent = `${Math.floor(share(figures) * 100)}%`;
  const eta = figures.etaSeconds === null ? '' : `, ETA ${figures.etaSeconds} s`;
  return `${percent}, ${figures.events.toLocaleString('en')} events, ${figures.eventsPerSecond.toLocaleString('en')} events/s${eta}`;
}
