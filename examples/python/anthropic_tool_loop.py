"""An Anthropic tool-use loop over Quire's tools, with a stand-in model.

    QUIRE_API_KEY=qk_... .venv/bin/python examples/python/anthropic_tool_loop.py \
        [address] [namespace] [question]

The tools are DescribeTools' `anthropic_tool` shapes, bound to one namespace; the messages
are Messages API content blocks (`tool_use` in, `tool_result` with `is_error` back).
`StandInModel` answers instead of the API so the example runs anywhere; with the `anthropic`
package, `respond` would be `client.messages.create(model=..., max_tokens=...,
messages=messages, tools=tools)`.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

from stand_in_model import StandInModel, ToolCall

from quire.client import AsyncQuireClient, ToolRunner


def respond(model: StandInModel, messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The assistant turn the API would return: a tool_use block, or the answer."""
    call = model.next_call()
    if call is None:
        text = {"type": "text", "text": model.answer()}
        return {"role": "assistant", "content": [text], "stop_reason": "end_turn"}
    use: dict[str, Any] = {"type": "tool_use", "id": f"toolu_{len(messages)}"}
    use.update(name=call.name, input=call.arguments)
    return {"role": "assistant", "content": [use], "stop_reason": "tool_use"}


async def main(address: str, namespace: str, question: str) -> str:
    async with AsyncQuireClient(address, api_key=os.environ["QUIRE_API_KEY"]) as client:
        runner = ToolRunner(client, namespace=namespace)
        tools = await runner.shapes("anthropic_tool")  # what the API's `tools=` takes
        assert all("input_schema" in t for t in tools)
        model = StandInModel(question)
        messages: list[dict[str, Any]] = [{"role": "user", "content": question}]
        for _ in range(8):  # a bound on the loop, as any agent should have
            turn = respond(model, messages)
            messages.append({"role": "assistant", "content": turn["content"]})
            if turn["stop_reason"] != "tool_use":
                return str(turn["content"][0]["text"])
            results = []
            for block in turn["content"]:
                if block["type"] != "tool_use":
                    continue
                outcome = await runner.call(block["name"], block["input"])
                print(f"{block['name']}({block['input']}) -> error={outcome.is_error}")
                model.results.append((ToolCall(block["name"], block["input"]), outcome.text))
                results.append(
                    {
                        "type": "tool_result",
                        "tool_use_id": block["id"],
                        "content": outcome.text,
                        "is_error": outcome.is_error,
                    }
                )
            messages.append({"role": "user", "content": results})
        return "stopped: too many steps"


if __name__ == "__main__":
    defaults = ["127.0.0.1:50051", "docs", "how do I install it"]
    args = sys.argv[1:] + defaults[len(sys.argv[1:]) :]
    print(asyncio.run(main(*args[:3])))
