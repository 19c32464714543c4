package dev.quire.client;

import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Function;

/** Lazy iteration over a paged list call: the next page is asked for when the last is used up. */
final class Pages {
  private Pages() {}

  record Page<T>(List<T> items, String nextCursor) {}

  static <T> Iterable<T> paged(Function<String, Page<T>> fetch) {
    return () ->
        new Iterator<>() {
          private Iterator<T> current = List.<T>of().iterator();
          private String cursor = "";
          private boolean last;

          @Override
          public boolean hasNext() {
            while (!current.hasNext() && !last) {
              Page<T> page = fetch.apply(cursor);
              current = page.items().iterator();
              cursor = page.nextCursor();
              last = cursor.isEmpty();
            }
            return current.hasNext();
          }

          @Override
          public T next() {
            if (!hasNext()) {
              throw new NoSuchElementException();
            }
            return current.next();
          }
        };
  }
}
