// The console's shell: sign-in, navigation and the hash router. Each page gets an
// AbortSignal that fires when the user leaves it, which closes its open streams.

import { RpcError, unary, whenUnauthenticated } from "./connect.js";
import { errorLine, h, replace } from "./dom.js";
import { apiKey, signIn, signOut } from "./session.js";
import { collectionsView, collectionView } from "./views/collections.js";
import { documentView } from "./views/document.js";
import { namespacesView, namespaceView } from "./views/published.js";
import { rolloutView } from "./views/rollout.js";
import { searchView } from "./views/search.js";

const main = document.getElementById("main")!;
const nav = document.getElementById("nav")!;
let leaving = new AbortController();
// True while a key typed into the sign-in form is being tried: its refusal is shown there,
// not as an ended session.
let verifying = false;

function signInView(reason?: string): void {
  nav.hidden = true;
  const key = h("input", { type: "password", name: "api-key", id: "api-key", placeholder: "qk_…", autocomplete: "off", required: true, size: 48 });
  const message = h("div", { id: "signin-message" }, reason ? h("p", { class: "error", role: "alert" }, reason) : null);
  const form = h("form", { id: "signin" },
    h("label", { for: "api-key" }, "API key"), key, h("button", { type: "submit" }, "Sign in"),
    h("p", { class: "hint" }, "Kept in this tab's session storage only: closing the tab signs you out."));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    signIn(key.value);
    verifying = true;
    unary("KnowledgeService/ListCollections", {})
      .finally(() => { verifying = false; })
      .then(() => route())
      .catch((error: unknown) => {
        if (error instanceof RpcError && error.code === "permission_denied") return route();  // a key without read scope
        signOut();
        replace(message, error instanceof RpcError && error.code === "unauthenticated"
          ? h("p", { class: "error", role: "alert" }, `That API key was refused: ${error.message}`)
          : errorLine(error));
      });
  });
  replace(main, h("h1", {}, "Sign in to Quire"), form, message);
  key.focus();
}

whenUnauthenticated((error) => {
  if (verifying) return;
  signOut();
  leaving.abort();
  signInView(`Your session ended: ${error.message}. Sign in again.`);
});

function route(): void {
  leaving.abort();
  leaving = new AbortController();
  const signal = leaving.signal;
  if (!apiKey()) return signInView();
  nav.hidden = false;
  const [path = "", search = ""] = location.hash.replace(/^#/, "").split("?");
  const query = new URLSearchParams(search);
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  for (const link of nav.querySelectorAll("a")) link.classList.toggle("current", link.hash.slice(2) === (parts[0] ?? "collections"));
  const offset = Number(query.get("offset") ?? 0) || 0;
  const done = (() => {
    switch (parts[0]) {
      case undefined:
      case "collections":
        return parts[1] ? collectionView(main, parts[1], signal) : collectionsView(main, signal);
      case "documents":
        return documentView(main, parts[1] ?? "", parts[2] ?? "", offset, signal);
      case "search":
        return searchView(main, signal);
      case "rollout":
        return rolloutView(main, parts[1], signal);
      case "pages":
        return parts[1] ? namespaceView(main, parts[1], query.get("path"), offset, signal) : namespacesView(main, signal);
      default:
        replace(main, h("h1", {}, "Not found"), h("p", {}, h("a", { href: "#/collections" }, "Collections")));
        return Promise.resolve();
    }
  })();
  done.catch((error: unknown) => { if (!signal.aborted) main.append(errorLine(error)); });
}

document.getElementById("sign-out")!.addEventListener("click", () => {
  signOut();
  location.hash = "";
  route();
});
window.addEventListener("hashchange", route);
route();
