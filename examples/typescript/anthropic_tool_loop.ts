/**
 * An Anthropic tool-use loop over Quire's tools, with a stand-in model.
 *
 *     cd clients/typescript && npm ci && npm run build
 *     cd ../../examples/typescript && npm ci && npm run build
 *     QUIRE_API_KEY=qk_... node dist/anthropic_tool_loop.js [http://127.0.0.1:50051] [namespace] [question]
 *
 * The tools are DescribeTools' `anthropicTool` shapes, bound to one namespace; the messages are
 * Messages API content blocks (`tool_use` in, `tool_result` with `is_error` back).
 * `StandInModel` answers instead of the API so the example runs anywhere; with the
 * `@anthropic-ai/sdk` package, `respond` would be
 * `await anthropic.messages.create({ model, max_tokens, messages, tools })`.
 */
import { QuireClient, ToolRunner } from "@quire/client";

import { StandInModel } from "./stand_in_model.js";

type Block =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | { type: "tool_result"; tool_use_id: string; content: string; is_error: boolean };

interface Turn {
  role: "user" | "assistant";
  content: string | Block[];
}

/** The assistant turn the API would return: a tool_use block, or the answer. */
function respond(model: StandInModel, messages: Turn[]): { content: Block[]; stop_reason: string } {
  const call = model.nextCall();
  if (call === undefined) return { content: [{ type: "text", text: model.answer() }], stop_reason: "end_turn" };
  const use: Block = { type: "tool_use", id: `toolu_${messages.length}`, name: call.name, input: call.arguments };
  return { content: [use], stop_reason: "tool_use" };
}

async function main(baseUrl: string, namespace: string, question: string): Promise<string> {
  const client = new QuireClient({ baseUrl }); // the key comes from $QUIRE_API_KEY
  try {
    const runner = new ToolRunner(client, { namespace });
    const tools = await runner.shapes("anthropicTool"); // what the API's `tools` takes
    if (!tools.every((t) => "input_schema" in t)) throw new Error("not the Anthropic shape");
    const model = new StandInModel(question);
    const messages: Turn[] = [{ role: "user", content: question }];
    for (let turn = 0; turn < 8; turn++) {
      // a bound on the loop, as any agent should have
      const reply = respond(model, messages);
      messages.push({ role: "assistant", content: reply.content });
      if (reply.stop_reason !== "tool_use") {
        const first = reply.content[0];
        return first?.type === "text" ? first.text : "";
      }
      const results: Block[] = [];
      for (const block of reply.content) {
        if (block.type !== "tool_use") continue;
        // `input` is an object: the runner checks it as it is.
        const outcome = await runner.call(block.name, block.input);
        console.log(`${block.name}(${JSON.stringify(block.input)}) -> error=${outcome.isError}`);
        model.results.push([{ name: block.name, arguments: block.input }, outcome.text]);
        results.push({ type: "tool_result", tool_use_id: block.id, content: outcome.text, is_error: outcome.isError });
      }
      messages.push({ role: "user", content: results });
    }
    return "stopped: too many steps";
  } finally {
    client.close();
  }
}

const [baseUrl = "http://127.0.0.1:50051", namespace = "docs", question = "how do I install it"] = process.argv.slice(2);
console.log(await main(baseUrl, namespace, question));
