/**
 * An OpenAI function-calling tool loop over Quire's tools, with a stand-in model.
 *
 *     cd clients/typescript && npm ci && npm run build
 *     cd ../../examples/typescript && npm ci && npm run build
 *     QUIRE_API_KEY=qk_... node dist/openai_tool_loop.js [http://127.0.0.1:50051] [namespace] [question]
 *
 * The tools are DescribeTools' `openaiTool` shapes (strict mode), bound to one namespace; the
 * messages are Chat Completions messages. `StandInModel` answers instead of the API so the
 * example runs anywhere; with the `openai` package, `respond` would be
 * `(await openai.chat.completions.create({ model, messages, tools })).choices[0].message`.
 */
import { QuireClient, ToolRunner } from "@quire/client";

import { StandInModel } from "./stand_in_model.js";

interface ToolCallMessage {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

type Message =
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ToolCallMessage[] }
  | { role: "tool"; tool_call_id: string; content: string };

/** The assistant message the API would return: tool calls, or the answer. */
function respond(model: StandInModel, messages: Message[]): Extract<Message, { role: "assistant" }> {
  const call = model.nextCall();
  if (call === undefined) return { role: "assistant", content: model.answer() };
  const toolCall: ToolCallMessage = {
    id: `call_${messages.length}`,
    type: "function",
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  };
  return { role: "assistant", content: null, tool_calls: [toolCall] };
}

async function main(baseUrl: string, namespace: string, question: string): Promise<string> {
  const client = new QuireClient({ baseUrl }); // the key comes from $QUIRE_API_KEY
  try {
    const runner = new ToolRunner(client, { namespace });
    const tools = await runner.shapes("openaiTool"); // what the API's `tools` takes
    if (!tools.every((t) => (t["function"] as { strict?: boolean }).strict)) throw new Error("not strict mode");
    const model = new StandInModel(question);
    const messages: Message[] = [{ role: "user", content: question }];
    for (let turn = 0; turn < 8; turn++) {
      // a bound on the loop, as any agent should have
      const message = respond(model, messages);
      messages.push(message);
      if (!message.tool_calls?.length) return String(message.content);
      for (const toolCall of message.tool_calls) {
        const { name, arguments: text } = toolCall.function;
        // `arguments` is the model's JSON text: the runner parses and checks it.
        const outcome = await runner.call(name, text);
        console.log(`${name}(${text}) -> error=${outcome.isError} ${outcome.text.slice(0, 120)}`);
        model.results.push([{ name, arguments: JSON.parse(text) }, outcome.text]);
        messages.push({ role: "tool", tool_call_id: toolCall.id, content: outcome.text });
      }
    }
    return "stopped: too many steps";
  } finally {
    client.close();
  }
}

const [baseUrl = "http://127.0.0.1:50051", namespace = "docs", question = "how do I install it"] = process.argv.slice(2);
console.log(await main(baseUrl, namespace, question));
