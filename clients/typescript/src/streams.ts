const ignore = (): void => {};

/**
 * Iterates a Connect response stream. When the consumer stops early (break, return, or an
 * exception in the loop body) the call is aborted through `controller`, and the stream is read
 * once more so that Connect settles the call and clears its deadline timer (Connect only
 * releases it from `next()`; an abandoned iterator would keep the process alive until the
 * deadline).
 */
export async function* abortable<T>(
  messages: AsyncIterable<T>,
  controller: AbortController,
): AsyncGenerator<T, void, undefined> {
  const it = messages[Symbol.asyncIterator]();
  let settled = false;
  try {
    for (;;) {
      let result: IteratorResult<T>;
      try {
        result = await it.next();
      } catch (err) {
        settled = true;
        throw err;
      }
      if (result.done) {
        settled = true;
        return;
      }
      yield result.value;
    }
  } finally {
    if (!settled) {
      controller.abort();
      it.next().then(ignore, ignore);
    }
  }
}
