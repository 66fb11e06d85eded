"""A LangGraph agent with a scripted chat model, traced by OpenInference, exporting OTLP.

    python agent.py --mode loop    --agent-id looper  [--calls 30] [--turns 1] [--run-id ID] [--step-delay 0.1]
    python agent.py --mode healthy --agent-id steady

The agent is LangGraph's ReAct loop (a model node, a ToolNode, ``tools_condition``) over a chat model
that needs no network: it answers with the tool calls of a script, then with a final message. Its
spans come from ``openinference-instrumentation-langchain``, exactly as in an instrumented
production agent, inside an ``invoke_agent <agent id>`` span that the program opens itself (GenAI
conventions: ``gen_ai.agent.id``, ``gen_ai.conversation.id``).

- ``loop``: the same call (``lookup_order`` with ``{"orderId": "order-42"}``) and the same result
  every time, as in the project's acceptance tests: under OpenClaw's defaults with detection on, a
  warning at call 11 and a critical at call 21.
- ``healthy``: a different order each call, each with its own result: no loop.

The run runs inside OpenInference's ``using_session(run id)``, so every LangChain span carries
``session.id``; the root span carries it too, so that a collector routing by that attribute keeps
the whole run on one backend. With ``--turns N`` (N > 1) the program is a chat service instead: each
turn is one request (a ``POST /chat`` server span, so its own trace) continued from a LangGraph
checkpoint (thread id = run id), the calls shared out between the turns; no ``invoke_agent`` span
bounds the run, which is the session: one run across N traces.

Export is configured by the standard OTel variables: ``OTEL_EXPORTER_OTLP_ENDPOINT`` (required),
``OTEL_EXPORTER_OTLP_PROTOCOL`` (``grpc``, the default here, or ``http/protobuf``),
``OTEL_SERVICE_NAME``, ``OTEL_RESOURCE_ATTRIBUTES``, ``OTEL_BSP_*``. The program prints one JSON
line on stdout (agent, run and trace ids, calls made, spans exported) and exits 1 when the exporter
failed to deliver any span. The LLM spans of a long conversation flatten every message into
attributes, past the SDK's default limit of 128 per span: ``OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT``
defaults to 1024 here.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import uuid
from typing import Any, Sequence

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from openinference.instrumentation import using_session
from openinference.instrumentation.langchain import LangChainInstrumentor
from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

TOOL_NAME = "lookup_order"


class ScriptedToolCallingModel(GenericFakeChatModel):
    """``GenericFakeChatModel`` (one scripted message per call) that accepts ``bind_tools``."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> "ScriptedToolCallingModel":
        return self


def turn_sizes(calls: int, turns: int) -> list[int]:
    """The calls of each turn: ``calls`` shared out as evenly as possible, earlier turns first."""
    return [calls // turns + (1 if t < calls % turns else 0) for t in range(turns)]


def scripted_messages(mode: str, calls: int, turns: int) -> list[AIMessage]:
    """Per turn, one tool call per model reply, then an answer; token usage grows with the conversation."""
    messages = []
    call = 0
    for size in turn_sizes(calls, turns):
        for _ in range(size):
            order = "order-42" if mode == "loop" else f"order-{call}"
            call += 1
            messages.append(
                AIMessage(
                    content="",
                    tool_calls=[{"name": TOOL_NAME, "args": {"orderId": order}, "id": f"call_{call}", "type": "tool_call"}],
                    usage_metadata={"input_tokens": 200 + 40 * call, "output_tokens": 20, "total_tokens": 220 + 40 * call},
                )
            )
        messages.append(
            AIMessage(
                content="Order 42 is still pending." if mode == "loop" else f"Checked {call} orders.",
                usage_metadata={"input_tokens": 240 + 40 * call, "output_tokens": 12, "total_tokens": 252 + 40 * call},
            )
        )
    return messages


class CountingExporter(SpanExporter):
    """Delegates to the OTLP exporter and counts the spans it delivered and failed to deliver."""

    def __init__(self, inner: SpanExporter) -> None:
        self.inner = inner
        self.exported = 0
        self.failed = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        result = self.inner.export(spans)
        if result is SpanExportResult.SUCCESS:
            self.exported += len(spans)
        else:
            self.failed += len(spans)
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.inner.force_flush(timeout_millis)


def otlp_exporter() -> SpanExporter:
    protocol = os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
    if protocol == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcExporter

        return GrpcExporter()
    if protocol == "http/protobuf":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpExporter

        return HttpExporter()
    raise SystemExit(f"agent.py: OTEL_EXPORTER_OTLP_PROTOCOL={protocol!r} is not grpc or http/protobuf")


def build_agent(mode: str, calls: int, turns: int, step_delay: float, executions: list[str]):
    @tool(TOOL_NAME)
    def lookup_order(orderId: str) -> str:
        """Looks up an order's status."""
        executions.append(orderId)
        if step_delay > 0:
            time.sleep(step_delay)
        return "status: pending" if mode == "loop" else f"status: {orderId} delivered"

    model = ScriptedToolCallingModel(messages=iter(scripted_messages(mode, calls, turns)))

    def call_model(state: MessagesState) -> dict[str, list[Any]]:
        return {"messages": [model.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("agent", call_model)
    graph.add_node("tools", ToolNode([lookup_order]))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    return graph.compile(checkpointer=InMemorySaver())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=["loop", "healthy"], required=True)
    parser.add_argument("--agent-id", required=True, help="gen_ai.agent.id of the run")
    parser.add_argument("--calls", type=int, default=30, help="tool calls the model asks for (default 30)")
    parser.add_argument("--turns", type=int, default=1, help="turns of the conversation, one trace each (default 1)")
    parser.add_argument("--run-id", default=None, help="session / conversation id (default: a new UUID)")
    parser.add_argument("--step-delay", type=float, default=0.0, help="seconds each tool call takes (default 0)")
    args = parser.parse_args(argv)
    if args.calls < 1:
        parser.error("--calls must be at least 1")
    if not 1 <= args.turns <= args.calls:
        parser.error("--turns must be between 1 and --calls")
    if not os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        parser.error("set OTEL_EXPORTER_OTLP_ENDPOINT (e.g. http://127.0.0.1:4317)")
    run_id = args.run_id or str(uuid.uuid4())

    os.environ.setdefault("OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", "1024")
    exporter = CountingExporter(otlp_exporter())
    provider = TracerProvider(resource=Resource.create())  # OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES
    provider.add_span_processor(BatchSpanProcessor(exporter))
    LangChainInstrumentor().instrument(tracer_provider=provider)
    tracer = provider.get_tracer("tool-loop-guard-e2e-agent")

    executions: list[str] = []
    agent = build_agent(args.mode, args.calls, args.turns, args.step_delay, executions)
    agent_attributes = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.id": args.agent_id,
        "gen_ai.agent.name": args.agent_id,
        "gen_ai.conversation.id": run_id,
        "session.id": run_id,
    }
    request_attributes = {"http.request.method": "POST", "http.route": "/chat", "session.id": run_id}
    config = {"recursion_limit": 2 * args.calls + 5, "configurable": {"thread_id": run_id}}
    trace_ids = []
    answers = []
    with using_session(run_id):
        for turn in range(args.turns):
            if args.turns == 1:
                name, kind, attributes = f"invoke_agent {args.agent_id}", trace.SpanKind.INTERNAL, agent_attributes
            else:
                name, kind, attributes = "POST /chat", trace.SpanKind.SERVER, request_attributes
            with tracer.start_as_current_span(name, kind=kind, attributes=attributes) as root:
                trace_ids.append(format(root.get_span_context().trace_id, "032x"))
                question = "Where is order 42?" if turn == 0 else "Please check again."
                result = agent.invoke({"messages": [HumanMessage(question)]}, config)
                answers.append(result["messages"][-1].content)
    provider.shutdown()

    print(
        json.dumps(
            {
                "agent_id": args.agent_id,
                "mode": args.mode,
                "run_id": run_id,
                "trace_ids": trace_ids,
                "service_name": provider.resource.attributes.get("service.name"),
                "tool_calls": len(executions),
                "answers": answers,
                "spans_exported": exporter.exported,
                "spans_failed": exporter.failed,
            }
        )
    )
    if exporter.failed:
        print(f"agent.py: {exporter.failed} spans were not delivered to the collector", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
