"""An OpenAI function-calling tool loop over Quire's tools, with a stand-in model.

    QUIRE_API_KEY=qk_... .venv/bin/python examples/python/openai_tool_loop.py \
        [address] [namespace] [question]

The tools are DescribeTools' `openai_tool` shapes (strict mode), bound to one namespace; the
messages are Chat Completions messages. `StandInModel` answers instead of the API so the
example runs anywhere; with the `openai` package, `respond` would be
`client.chat.completions.create(model=..., messages=messages, tools=tools).choices[0].message`.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

from stand_in_model import StandInModel, ToolCall

from quire.client import AsyncQuireClient, ToolRunner


def respond(model: StandInModel, messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The assistant message the API would return: tool calls, or the answer."""
    call = model.next_call()
    if call is None:
        return {"role": "assistant", "content": model.answer()}
    tool_call = {
        "id": f"call_{len(messages)}",
        "type": "function",
        "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
    }
    return {"role": "assistant", "content": None, "tool_calls": [tool_call]}


async def main(address: str, namespace: str, question: str) -> str:
    async with AsyncQuireClient(address, api_key=os.environ["QUIRE_API_KEY"]) as client:
        runner = ToolRunner(client, namespace=namespace)
        tools = await runner.shapes("openai_tool")  # what the API's `tools=` takes
        assert all(t["function"]["strict"] for t in tools)
        model = StandInModel(question)
        messages: list[dict[str, Any]] = [{"role": "user", "content": question}]
        for _ in range(8):  # a bound on the loop, as any agent should have
            message = respond(model, messages)
            messages.append(message)
            if not message.get("tool_calls"):
                return str(message["content"])
            for tool_call in message["tool_calls"]:
                name = tool_call["function"]["name"]
                arguments = json.loads(tool_call["function"]["arguments"])
                outcome = await runner.call(name, arguments)
                print(f"{name}({arguments}) -> error={outcome.is_error} {outcome.text[:120]}")
                model.results.append((ToolCall(name, arguments), outcome.text))
                messages.append(
                    {"role": "tool", "tool_call_id": tool_call["id"], "content": outcome.text}
                )
        return "stopped: too many steps"


if __name__ == "__main__":
    defaults = ["127.0.0.1:50051", "docs", "how do I install it"]
    args = sys.argv[1:] + defaults[len(sys.argv[1:]) :]
    print(asyncio.run(main(*args[:3])))
