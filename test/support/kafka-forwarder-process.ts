import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

const BIN = path.resolve(import.meta.dirname, '../../bin/petstore.js');

/** `petstore forward` (or another command) as a real child process, with its output kept for assertions. */
export class ForwarderProcess {
  readonly output: string[] = [];
  readonly exited: Promise<number | null>;
  readonly #child: ChildProcess;

  constructor(env: Record<string, string>, command = 'forward') {
    this.#child = spawn(process.execPath, [BIN, command], {
      env: { ...process.env, EVENT_STORE_URL: '', KAFKA_FORWARDER: 'false', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#child.stdout?.on('data', (chunk: Buffer) => this.output.push(chunk.toString()));
    this.#child.stderr?.on('data', (chunk: Buffer) => this.output.push(chunk.toString()));
    this.exited = new Promise((resolve) => this.#child.once('exit', (code) => resolve(code)));
  }

  get running(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null;
  }

  async waitForOutput(text: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.output.join('').includes(text)) {
      if (Date.now() > deadline || !this.running) {
        throw new Error(
          `petstore forward did not print "${text}" within ${timeoutMs} ms:\n${this.output.join('')}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Closes the read end of its stdout, as a log reader that goes away does. */
  stopReadingStdout(): void {
    this.#child.stdout?.destroy();
  }

  /** A crash: no shutdown code runs. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.#child.kill('SIGKILL');
    await this.exited;
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.#child.kill('SIGTERM');
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(timer);
  }
}
