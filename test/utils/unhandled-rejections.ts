import { runInThisContext } from 'node:vm';

/**
 * Records unhandled promise rejections while installed.
 *
 * Inside a Jest test file `process` is a sandbox copy: listeners added to it are never called,
 * because Node emits 'unhandledRejection' on the real process object. `runInThisContext` evaluates
 * in Node's main context, which gives the real one. (Jest also fails the running test on an
 * unhandled rejection; this makes the check explicit and reports what was rejected.)
 */
export class UnhandledRejections {
  readonly seen: unknown[] = [];
  private readonly realProcess = runInThisContext('process') as NodeJS.Process;
  private readonly listener = (reason: unknown): void => {
    this.seen.push(reason);
  };

  install(): void {
    this.realProcess.on('unhandledRejection', this.listener);
  }

  uninstall(): void {
    this.realProcess.off('unhandledRejection', this.listener);
  }

  /** Readable list for assertion messages. */
  describe(): string[] {
    return this.seen.map((r) => (r instanceof Error ? `${r.name}: ${r.message}` : String(r)));
  }
}
