#!/usr/bin/env python3
"""Renders the golden corpus: every case in CASES through every official chat template.

The environment copies what transformers' apply_chat_template builds (chat_template_utils.py):
an ImmutableSandboxedEnvironment with trim_blocks, lstrip_blocks and loopcontrols, its own tojson
(json.dumps with ensure_ascii=False), raise_exception and strftime_now as globals, and the variables
messages, tools, add_generation_prompt, bos_token, eos_token plus chat_template_kwargs at top level.

ForgeLM passes messages the way its HTTP layer builds them, so the cases do too: content is always
a string ("" when an assistant message only calls tools), tool_calls and reasoning_content are
present only when non-empty, tool-call arguments are JSON objects, tools are OpenAI function tools.

Usage: python3 make_golden.py [LLAMA_SRC]   (default ~/.cache/forge/llama-3.22.1/src)
Writes cases/<case>.json and expected/<variant>/<case>.txt, or <case>.error when the template
raises (the first line is the message when the template called raise_exception); copies each
template it rendered into sources/ and lists them, with the BOS and EOS texts it rendered with, in
templates.json (what the generic Jinja path's fidelity test renders).
"""
import json
import os
import shutil
import sys
from datetime import datetime

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment, SandboxedEnvironment

VARIANTS = {
    "qwen2.5": ("Qwen-Qwen2.5-7B-Instruct.jinja", "", "<|im_end|>"),
    "qwen3": ("Qwen-Qwen3-0.6B.jinja", "", "<|im_end|>"),
    "qwen3.5": ("Qwen3.5-4B.jinja", "", "<|im_end|>"),
    "qwen3-coder": ("Qwen3-Coder.jinja", "", "<|im_end|>"),
    "gemma2": ("google-gemma-2-2b-it.jinja", "<bos>", "<eos>"),
    "gemma4": ("google-gemma-4-31B-it.jinja", "<bos>", "<eos>"),
    "llama3.1": ("meta-llama-Llama-3.1-8B-Instruct.jinja", "<|begin_of_text|>", "<|eot_id|>"),
    "llama3.2": ("meta-llama-Llama-3.2-3B-Instruct.jinja", "<|begin_of_text|>", "<|eot_id|>"),
    "llama3.3": ("meta-llama-Llama-3.3-70B-Instruct.jinja", "<|begin_of_text|>", "<|eot_id|>"),
    "kimi-k2": ("moonshotai-Kimi-K2.jinja", "[BOS]", "[EOS]"),
    "kimi-k2-instruct": ("Kimi-K2-Instruct.jinja", "[BOS]", "[EOS]"),
}

# Official templates that no family plugin renders: the realistic targets of the generic path,
# which renders a model's own template with forge.template.jinja. Their expected outputs measure that path.
GENERIC_ONLY = {
    "generic-only/mistral-nemo": ("mistralai-Mistral-Nemo-Instruct-2407.jinja", "<s>", "</s>"),
    "generic-only/phi-3.5": ("microsoft-Phi-3.5-mini-instruct.jinja", "<s>", "<|endoftext|>"),
    "generic-only/smollm3": ("HuggingFaceTB-SmolLM3-3B.jinja", "", "<|im_end|>"),
    "generic-only/granite-3.3": ("ibm-granite-granite-3.3-2B-Instruct.jinja", "<|end_of_text|>", "<|end_of_text|>"),
    "generic-only/deepseek-r1-distill-qwen": ("deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja",
                                              "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"),
    "generic-only/hermes-3": ("NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja", "<|begin_of_text|>", "<|im_end|>"),
}

WEATHER = {"type": "function", "function": {
    "name": "get_weather",
    "description": "Get the current weather in a city",
    "parameters": {"type": "object", "properties": {
        "city": {"type": "string", "description": "City name, e.g. Zürich"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
        "days": {"type": "number", "minimum": 0.5, "maximum": 1e-05}},
        "required": ["city"]}}}
SEARCH = {"type": "function", "function": {
    "name": "search",
    "description": "Search the web",
    "parameters": {"type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
                   "required": ["query"]}}}
TOOLS = [WEATHER, SEARCH]
DATE = {"date_string": "05 Mar 2025"}


def call(cid, name, args):
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}


def m(role, content, **extra):
    d = {"role": role, "content": content}
    d.update(extra)
    return d


CASES = {
    "basic": dict(messages=[m("user", "Hello!")]),
    "no_generation_prompt": dict(messages=[m("user", "Hi"), m("assistant", "Hello, how can I help?")],
                                 add_generation_prompt=False),
    "multi_turn": dict(messages=[m("user", "What is 2+2?"), m("assistant", "4."), m("user", "And times 3?"),
                                 m("assistant", "12."), m("user", "Thanks")]),
    "system_multi_turn": dict(messages=[m("system", "You are terse."), m("user", "Name a colour."),
                                        m("assistant", "Blue."), m("user", "Another?")]),
    "unicode_and_spaces": dict(messages=[m("system", "  Réponds en français — «toujours» 🙂\n"),
                                         m("user", "\u00a0 héllo 世界 \"quotes\" \\ back\tslash \n\n"),
                                         m("assistant", "  ça va ? 🎉  "), m("user", "ok\u2028")]),
    "roles_out_of_order": dict(messages=[m("user", "one"), m("user", "two")]),
    "assistant_first": dict(messages=[m("assistant", "I speak first"), m("user", "ok")]),
    "tools_offered": dict(messages=[m("user", "Weather in Paris?")], tools=TOOLS),
    "tools_with_system": dict(messages=[m("system", "Use tools when useful."), m("user", "Weather in Paris?")],
                              tools=TOOLS),
    "tool_call_single": dict(messages=[
        m("system", "Use tools when useful."), m("user", "Weather in Paris?"),
        m("assistant", "", tool_calls=[call("call_1", "get_weather", {"city": "Paris", "days": 2.0})]),
        m("tool", "{\"temp\": 21, \"sky\": \"clear\"}", tool_call_id="call_1", name="get_weather")], tools=TOOLS),
    "tool_call_with_content": dict(messages=[
        m("user", "Weather in Zürich?"),
        m("assistant", "Let me check.", tool_calls=[call("call_9", "get_weather", {"city": "Zürich", "unit": None})]),
        m("tool", "sunny, 18°C", tool_call_id="call_9"),
        m("assistant", "It is sunny, 18°C."), m("user", "Thanks!")], tools=TOOLS),
    "tool_calls_parallel": dict(messages=[
        m("user", "Weather in Paris and Rome, and search news"),
        m("assistant", "", tool_calls=[call("a", "get_weather", {"city": "Paris"}),
                                       call("b", "get_weather", {"city": "Rome", "unit": "celsius"}),
                                       call("c", "search", {"query": "news", "limit": 3, "flags": [True, False, None]})]),
        m("tool", "20C", tool_call_id="a", name="get_weather"),
        m("tool", "25C", tool_call_id="b", name="get_weather"),
        m("tool", "[]", tool_call_id="c", name="search")], tools=TOOLS),
    "thinking_off": dict(messages=[m("user", "Quick: capital of Italy?")], kwargs={"enable_thinking": False}),
    "thinking_on": dict(messages=[m("user", "Think: capital of Italy?")], kwargs={"enable_thinking": True}),
    "reasoning_history": dict(messages=[
        m("system", "Think first."), m("user", "2+2?"),
        m("assistant", "4", reasoning_content="Adding two and two."), m("user", "3+3?"),
        m("assistant", "<think>\nThree and three.\n</think>\n\n6")], add_generation_prompt=False),
    "reasoning_last_turn": dict(messages=[
        m("user", "2+2?"), m("assistant", "4", reasoning_content="\nTwo plus two.\n")],
        add_generation_prompt=False),
    "reasoning_with_tools": dict(messages=[
        m("user", "Weather in Oslo?"),
        m("assistant", "", reasoning_content="Need the tool.", tool_calls=[call("t1", "get_weather", {"city": "Oslo"})]),
        m("tool", "cold", tool_call_id="t1", name="get_weather")], tools=TOOLS),
}


class Rejected(Exception):
    pass


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def strftime_now(fmt):
    # Cases give date_string; a template that still asks for the clock gets a fixed day so the
    # corpus is reproducible.
    return datetime(2025, 1, 1).strftime(fmt)


def environment(immutable=True):
    env = (ImmutableSandboxedEnvironment if immutable else SandboxedEnvironment)(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.expanduser("~/.cache/forge/llama-3.22.1/src")
    here = os.path.dirname(os.path.abspath(__file__))
    cases_dir, expected_dir = os.path.join(here, "cases"), os.path.join(here, "expected")
    shutil.rmtree(cases_dir, ignore_errors=True)
    shutil.rmtree(expected_dir, ignore_errors=True)
    sources_dir = os.path.join(here, "sources")
    shutil.rmtree(sources_dir, ignore_errors=True)
    os.makedirs(cases_dir)
    os.makedirs(sources_dir)
    env = environment()
    # Kimi K2 Instruct's template appends to a list in a namespace, which transformers' immutable
    # sandbox refuses ("access to attribute 'append' of 'list' object is unsafe"): every tool call
    # would fail. ForgeLM renders what the template means, so its corpus uses the mutable sandbox.
    mutable = environment(immutable=False)
    for name, case in CASES.items():
        kwargs = dict(DATE)
        kwargs.update(case.get("kwargs", {}))
        doc = {"messages": case["messages"], "tools": case.get("tools", []),
               "add_generation_prompt": case.get("add_generation_prompt", True), "chat_template_kwargs": kwargs}
        with open(os.path.join(cases_dir, name + ".json"), "w", encoding="utf-8") as f:
            json.dump(doc, f, ensure_ascii=False, indent=2)
            f.write("\n")
    index = {}
    for variant, (file, bos, eos) in {**VARIANTS, **GENERIC_ONLY}.items():
        shutil.copyfile(os.path.join(src, "models", "templates", file), os.path.join(sources_dir, file))
        index[variant] = {"file": file, "bos": bos, "eos": eos}
        with open(os.path.join(src, "models", "templates", file), encoding="utf-8") as f:
            template = (mutable if variant == "kimi-k2-instruct" else env).from_string(f.read())
        out = os.path.join(expected_dir, variant)
        os.makedirs(out)
        for name, case in CASES.items():
            with open(os.path.join(cases_dir, name + ".json"), encoding="utf-8") as f:
                doc = json.load(f)
            try:
                text = template.render(messages=doc["messages"], tools=doc["tools"] or None,
                                       add_generation_prompt=doc["add_generation_prompt"],
                                       bos_token=bos, eos_token=eos, **doc["chat_template_kwargs"])
                path, body = os.path.join(out, name + ".txt"), text
            except jinja2.exceptions.TemplateError as e:
                kind = "raise_exception" if type(e) is jinja2.exceptions.TemplateError else type(e).__name__
                path, body = os.path.join(out, name + ".error"), f"{e}\n{kind}\n"
            except Exception as e:
                path, body = os.path.join(out, name + ".error"), f"{e}\n{type(e).__name__}\n"
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(body)
    with open(os.path.join(here, "templates.json"), "w", encoding="utf-8") as f:
        json.dump(index, f, ensure_ascii=False, indent=2)
        f.write("\n")
    print(f"{len(CASES)} cases x {len(VARIANTS)} variants + {len(GENERIC_ONLY)} generic-only templates")


if __name__ == "__main__":
    main()
