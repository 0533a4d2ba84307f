// One task at a time: each starts once the one before has settled, whatever its outcome, so
// that read-modify-write of a state file never interleaves. The stores of the state dir each
// keep one.
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(task, task);
    this.#tail = run.catch(() => undefined);
    return run;
  }
}
