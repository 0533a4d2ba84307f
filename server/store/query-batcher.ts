// Coalesces concurrent calls into one statement per round trip (as a group commit does): under
// load the round trips and socket writes, not the queries themselves, cost the most.

/**
 * Sends the first call at once; calls made while a statement is in flight wait for it and then
 * go together in the next one. One statement at a time, also so that two batches never lock
 * rows against each other (measured: two in flight deadlocked the session writes). Each call resolves with its own result once its statement has
 * completed, so a caller never sees less than it would with a statement of its own; a failed
 * statement fails every call in it.
 */
export class QueryBatcher<In, Out> {
  private queue: { input: In; done: (out: Out) => void; failed: (error: unknown) => void }[] = [];
  private sending = false;

  constructor(
    /** Runs one statement for the inputs; answers one result per input, in the same order. */
    private readonly run: (inputs: In[]) => Promise<Out[]>,
    private readonly maxBatch = 1_000,
  ) {}

  call(input: In): Promise<Out> {
    return new Promise((done, failed) => {
      this.queue.push({ input, done, failed });
      if (!this.sending) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.sending = true;
    while (this.queue.length) {
      const batch = this.queue.splice(0, this.maxBatch);
      try {
        const outs = await this.run(batch.map((c) => c.input));
        if (outs.length !== batch.length)
          throw new Error('a batch answered the wrong number of results');
        batch.forEach((c, i) => c.done(outs[i]!));
      } catch (e) {
        for (const c of batch) c.failed(e);
      }
    }
    this.sending = false;
  }
}
