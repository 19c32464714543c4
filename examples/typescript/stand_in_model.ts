/**
 * A stand-in for a model in the tool-loop examples: deterministic, no network.
 *
 * It plays the part a real model plays in a tool loop, reading only what a model would read:
 * the question and the tool results (JSON text). It searches, corrects a refused argument from
 * the error's `field` and `bound`, reads the best hit at its revision, and answers with the
 * start of the page. Swap it for a call to your model's API; the loop around it stays the same.
 * (examples/python/stand_in_model.py is the same model.)
 */

export interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

export class StandInModel {
  /** The tool calls so far, each with the text the runner answered. */
  readonly results: [ToolCall, string][] = [];

  // The first search asks for more hits than the default policy allows, to show a model
  // correcting itself from a tool error.
  constructor(
    readonly question: string,
    readonly firstLimit = 50,
  ) {}

  /** The next tool call, or undefined to answer. */
  nextCall(): ToolCall | undefined {
    const last = this.results.at(-1);
    if (last === undefined) return { name: "search_pages", arguments: { query: this.question, limit: this.firstLimit } };
    const [call, text] = last;
    const body = JSON.parse(text);
    if ("error" in body) {
      const range = body.field === "limit" ? /^(\d+)–(\d+)$/.exec(body.bound ?? "") : null;
      return range ? { name: call.name, arguments: { ...call.arguments, limit: Number(range[2]) } } : undefined;
    }
    if (call.name === "search_pages" && body.hits.length > 0) {
      const best = body.hits[0];
      return { name: "read_page", arguments: { path: best.path, revision: best.revision, max_chars: 400 } };
    }
    return undefined;
  }

  answer(): string {
    for (const [call, text] of [...this.results].reverse()) {
      const body = JSON.parse(text);
      if (call.name === "read_page" && !("error" in body)) {
        const words = body.content.split(/\s+/).filter(Boolean).join(" "); // one line
        return `From ${body.page.path}: ${words.slice(0, 200)}`;
      }
    }
    return "I could not find it.";
  }
}
