/** A push-driven async iterable: the request side of a bidirectional stream. */
export class AsyncQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private waiting: ((result: IteratorResult<T, undefined>) => void) | undefined;
  private closed = false;

  push(item: T): void {
    if (this.closed) return;
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = undefined;
      waiting({ value: item, done: false });
    } else {
      this.items.push(item);
    }
  }

  /** Ends the iteration once the queued items are consumed. */
  close(): void {
    this.closed = true;
    const waiting = this.waiting;
    if (waiting && this.items.length === 0) {
      this.waiting = undefined;
      waiting({ value: undefined, done: true });
    }
  }

  private next(): Promise<IteratorResult<T, undefined>> {
    if (this.items.length > 0) return Promise.resolve({ value: this.items.shift() as T, done: false });
    if (this.closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  // An async generator (not a bare iterator): consumers such as Connect may call throw().
  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    try {
      for (;;) {
        const result = await this.next();
        if (result.done) return;
        yield result.value;
      }
    } finally {
      this.closed = true;
      this.items.length = 0;
    }
  }
}
