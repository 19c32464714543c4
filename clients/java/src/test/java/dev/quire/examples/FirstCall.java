package dev.quire.examples;

import dev.quire.client.QuireClient;
import dev.quire.v1.Collection;
import java.util.List;

/** docs/clients/java.md, "A first call": connect with a key and list the collections. */
public final class FirstCall {
  private FirstCall() {}

  public static void main(String[] args) {
    run(args.length > 0 ? args[0] : "127.0.0.1:50051", System.getenv("QUIRE_API_KEY"));
  }

  static int run(String address, String apiKey) {
    // doc:start
    // A local `quire up` listens in plaintext; leave out .plaintext() for TLS with the
    // system roots. Without .apiKey(...) the key comes from $QUIRE_API_KEY.
    try (QuireClient client = QuireClient.builder(address).plaintext().apiKey(apiKey).build()) {
      List<Collection> collections = client.listCollections();
      for (Collection c : collections) {
        System.out.println(c.getCollectionId() + " " + c.getName());
      }
      System.out.println(collections.size() + " collection(s)");
      return collections.size();
    }
    // doc:end
  }
}
