#!/usr/bin/env python3
"""Renders the golden corpus: every case in CASES through every official chat template.

The environment copies what transformers' apply_chat_template builds (chat_template_utils.py):
an ImmutableSandboxedEnvironment with trim_blocks, lstrip_blocks and loopcontrols, its own tojson
(json.dumps with ensure_ascii=False), raise_exception and strftime_now as globals, and the variables
messages, tools, add_generation_prompt, bos_token, eos_token plus chat_template_kwargs at top level.

It also has transformers' {% generation %} tag (AssistantTracker: the body renders as it is).

ForgeLM passes each message as the client sent it, with tool-call arguments parsed to JSON objects
(as llama-server does), so the cases are what a client may send: content a string, a list of text
parts, or null (an assistant message that only calls tools), any other keys kept.

Two sets of renders, each of all CASES (the family cases and the SHAPES): the family variants
(VARIANTS, what each family plugin must match byte for byte) and every official template in
models/templates/ (official/<name>, what the generic Jinja path must match).

Each template is first probed for the message shapes it cannot take (caps(): text parts it raises on
or prints as a repr, content null it raises on, a developer role it does not name), and each case's
messages are fitted to it (fit(): parts joined with newlines, null as "", developer as system), as
ForgeLM's TemplateCaps does; templates.json records each template's caps.
The official/ renders use the mutable sandbox, as ForgeLM does (see forge.template.jinja).

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

# BOS and EOS texts of the official templates' models, by file-name prefix (the first that
# matches); the rest get <s> and </s>. Only templates that print bos_token or eos_token use them.
BOS_EOS = [
    ("Qwen", "", "<|im_end|>"), ("HuggingFaceTB-SmolLM3", "", "<|im_end|>"), ("MiMo", "", "<|im_end|>"),
    ("google-gemma", "<bos>", "<eos>"), ("meta-llama", "<|begin_of_text|>", "<|eot_id|>"),
    ("NousResearch-Hermes-3", "<|begin_of_text|>", "<|im_end|>"), ("NousResearch-Hermes-2", "<|begin_of_text|>", "<|im_end|>"),
    ("fireworks-ai", "<|begin_of_text|>", "<|eot_id|>"), ("meetkai", "<|begin_of_text|>", "<|eot_id|>"),
    ("deepseek-ai-DeepSeek-R1-Distill", "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"),
    ("deepseek", "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"), ("llama-cpp-deepseek", "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"),
    ("moonshotai", "[BOS]", "[EOS]"), ("Kimi", "[BOS]", "[EOS]"),
    ("ibm-granite", "<|end_of_text|>", "<|end_of_text|>"), ("microsoft-Phi-3.5", "<s>", "<|endoftext|>"),
    ("CohereForAI", "<BOS_TOKEN>", "<|END_OF_TURN_TOKEN|>"), ("Cohere2", "<BOS_TOKEN>", "<|END_OF_TURN_TOKEN|>"),
    ("LFM", "<|startoftext|>", "<|im_end|>"), ("ByteDance-Seed", "<seed:bos>", "<seed:eos>"),
    ("openai-gpt-oss", "<|startoftext|>", "<|return|>"), ("GLM", "[gMASK]", "<|endoftext|>"),
    ("MiniMax", "<s>", "</s>"), ("tencent", "<｜hy_begin▁of▁sentence｜>", "<｜hy_end▁of▁sentence｜>"),
]


def official_templates(src):
    """Every official template: official/<file name without .jinja> -> (file, bos, eos)."""
    out = {}
    for file in sorted(os.listdir(os.path.join(src, "models", "templates"))):
        if file.endswith(".jinja"):
            bos, eos = next(((b, e) for prefix, b, e in BOS_EOS if file.startswith(prefix)), ("<s>", "</s>"))
            out["official/" + file[:-len(".jinja")]] = (file, bos, eos)
    return out

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
# A tool whose parameters nest objects, arrays of objects, enums, anyOf, $defs and descriptions.
BOOK = {"type": "function", "function": {
    "name": "book_trip",
    "description": "Book a trip with stops",
    "parameters": {"type": "object", "properties": {
        "traveller": {"type": "object", "description": "Who travels",
                      "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}},
                      "required": ["name"]},
        "stops": {"type": "array", "description": "Where to stop, in order",
                  "items": {"type": "object", "properties": {
                      "city": {"type": "string"}, "nights": {"type": "integer", "default": 1},
                      "tags": {"type": "array", "items": {"type": "string", "enum": ["beach", "museum"]}}},
                      "required": ["city"]}},
        "class": {"anyOf": [{"type": "string", "enum": ["economy", "business"]}, {"type": "null"}]},
        "budget": {"$ref": "#/$defs/money"}},
        "required": ["traveller", "stops"],
        "$defs": {"money": {"type": "object", "properties": {"amount": {"type": "number"}, "currency": {"type": "string"}}}}}}}
DOCUMENTS = [{"title": "Oslo facts", "text": "Oslo is the capital of Norway."},
             {"title": "Weather", "text": "Oslo is cold in winter."}]
DATE = {"date_string": "05 Mar 2025"}


def call(cid, name, args):
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}


def m(role, content, **extra):
    d = {"role": role, "content": content}
    d.update(extra)
    return d


FAMILY_CASES = {
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


def parts(*texts):
    return [{"type": "text", "text": t} for t in texts]


# Further shapes a client sends, rendered by the official/ templates only: ForgeLM hands these to a
# model's own template exactly as transformers would (content parts, null, extra keys).
SHAPES = {
    "content_parts": dict(messages=[m("system", parts("Be brief. ", " Be kind.")),
                                    m("user", parts(" Hello ", "\nworld ")),
                                    m("assistant", parts("Hi ", " there")), m("user", parts("Again"))]),
    "content_parts_user_only": dict(messages=[m("user", parts("one", "two"))]),
    "null_content_tool_call": dict(messages=[
        m("user", "Weather in Paris?"),
        m("assistant", None, tool_calls=[call("n1", "get_weather", {"city": "Paris"})]),
        m("tool", "rain", tool_call_id="n1", name="get_weather"), m("assistant", "It rains."),
        m("user", "Thanks")], tools=TOOLS),
    "tool_result_first": dict(messages=[m("tool", "orphan result", tool_call_id="x0"), m("user", "What was that?")],
                              tools=TOOLS),
    "tool_result_then_user": dict(messages=[
        m("user", "Weather in Rome?"),
        m("assistant", "", tool_calls=[call("r1", "get_weather", {"city": "Rome"})]),
        m("tool", "hot", tool_call_id="r1", name="get_weather"), m("user", "And now?")], tools=TOOLS),
    "tool_result_last_no_prompt": dict(messages=[
        m("user", "Weather in Rome?"),
        m("assistant", "", tool_calls=[call("r1", "get_weather", {"city": "Rome"})]),
        m("tool", "hot", tool_call_id="r1", name="get_weather")], tools=TOOLS, add_generation_prompt=False),
    "tool_result_parts": dict(messages=[
        m("user", "Search news"),
        m("assistant", "", tool_calls=[call("s1", "search", {"query": "news"})]),
        m("tool", parts("first ", "second"), tool_call_id="s1", name="search")], tools=TOOLS),
    "tool_results_interleaved": dict(messages=[
        m("system", "Use tools."), m("user", "Paris then Rome"),
        m("assistant", "Paris first.", tool_calls=[call("p", "get_weather", {"city": "Paris"})]),
        m("tool", "20C", tool_call_id="p", name="get_weather"),
        m("assistant", "Now Rome.", tool_calls=[call("q", "get_weather", {"city": "Rome"})]),
        m("tool", "25C", tool_call_id="q", name="get_weather"),
        m("assistant", "Paris 20C, Rome 25C."), m("user", "Thanks")], tools=TOOLS),
    "multiple_system": dict(messages=[m("system", "First rule."), m("system", "Second rule."), m("user", "Hi"),
                                      m("system", "Late rule."), m("user", "Again")]),
    "developer_role": dict(messages=[m("developer", "Answer in French."), m("user", "Hi")]),
    "reasoning_field_history": dict(messages=[
        m("user", "2+2?"), m("assistant", "4", reasoning="Two and two.", reasoning_content="Two and two."),
        m("user", "3+3?")]),
    "documents": dict(messages=[m("user", "What is the capital of Norway?")], kwargs={"documents": DOCUMENTS}),
    "nested_schema_tools": dict(messages=[m("system", "Plan trips."), m("user", "Book Oslo then Bergen")],
                                tools=[BOOK, WEATHER]),
    "nested_schema_call": dict(messages=[
        m("user", "Book Oslo"),
        m("assistant", "", tool_calls=[call("b1", "book_trip", {"traveller": {"name": "Ada", "age": 36},
                                                                "stops": [{"city": "Oslo", "nights": 2, "tags": ["museum"]}],
                                                                "class": None})]),
        m("tool", "{\"booked\": true}", tool_call_id="b1", name="book_trip")], tools=[BOOK]),
    "extra_keys": dict(messages=[m("user", "Hi", name="ada", x_client="v1"), m("assistant", "Hello", name="bot")]),
}

CASES = {**FAMILY_CASES, **SHAPES}


class Rejected(Exception):
    pass


class GenerationTag(jinja2.ext.Extension):
    """transformers' {% generation %}...{% endgeneration %} (AssistantTracker): marks assistant
    text for masks; the body renders unchanged."""
    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_render"), [], [], body).set_lineno(lineno)

    def _render(self, caller):
        return caller()


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def strftime_now(fmt):
    # Cases give date_string; a template that still asks for the clock gets a fixed day so the
    # corpus is reproducible.
    return datetime(2025, 1, 1).strftime(fmt)


PROBE_TOOL = {"type": "function", "function": {"name": "probe_fn", "description": "probe",
                                               "parameters": {"type": "object", "properties": {}}}}


def probe_calls(content):
    return [{"role": "user", "content": "forge-probe-q"},
            {"role": "assistant", "content": content, "tool_calls": [
                {"id": "forge_probe_1", "type": "function", "function": {"name": "probe_fn", "arguments": {}}}]},
            {"role": "tool", "content": "forge-probe-r", "tool_call_id": "forge_probe_1"}]


def caps(render, source):
    """What a template can take of the message shapes OpenAI's API allows (ForgeLM's TemplateCaps,
    the same probes): text parts (it prints each part's text, not the list's repr), content null beside
    tool calls (it neither raises nor prints None where "" renders), and the developer role (it names it)."""
    def attempt(messages, tools=None):
        try:
            return render(messages, tools)
        except Exception:
            return None
    plain = attempt([{"role": "user", "content": "forge-probe-text"}])
    strings = plain is not None and "forge-probe-text" in plain
    parts = attempt([{"role": "user", "content": [{"type": "text", "text": "forge-probe-a"},
                                                  {"type": "text", "text": "forge-probe-b"}]}])
    typed = parts is not None and "forge-probe-a" in parts and "forge-probe-b" in parts and "'type': 'text'" not in parts
    with_null = attempt(probe_calls(None), [PROBE_TOOL])
    with_empty = attempt(probe_calls(""), [PROBE_TOOL])
    null_breaks = with_empty is not None and (with_null is None or ("None" in with_null and "None" not in with_empty))
    return {"join_parts": strings and not typed, "null_as_empty": null_breaks,
            "developer_as_system": "developer" not in source}


def joined(parts):
    """Text parts joined as llama-server joins them for a template that takes only strings."""
    text = ""
    for p in parts:
        if isinstance(p, dict) and p.get("type") == "text":
            if text:
                text += "\n"
            text += p.get("text", "")
    return text


def fit(messages, c):
    """The messages a template is given: as sent, but for the shapes it cannot take (see caps)."""
    out = []
    for msg in messages:
        msg = dict(msg)
        if c["developer_as_system"] and msg.get("role") == "developer":
            msg["role"] = "system"
        if c["join_parts"] and isinstance(msg.get("content"), list):
            msg["content"] = joined(msg["content"])
        if c["null_as_empty"] and "content" in msg and msg["content"] is None:
            msg["content"] = ""
        out.append(msg)
    return out


def environment(immutable=True):
    env = (ImmutableSandboxedEnvironment if immutable else SandboxedEnvironment)(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[jinja2.ext.loopcontrols, GenerationTag])
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
    official = official_templates(src)
    for variant, (file, bos, eos) in {**VARIANTS, **official}.items():
        shutil.copyfile(os.path.join(src, "models", "templates", file), os.path.join(sources_dir, file))
        index[variant] = {"file": file, "bos": bos, "eos": eos}
        out = os.path.join(expected_dir, variant)
        os.makedirs(out)
        with open(os.path.join(src, "models", "templates", file), encoding="utf-8") as f:
            source = f.read()
        try:
            template = (mutable if variant == "kimi-k2-instruct" or variant in official else env).from_string(source)
        except jinja2.exceptions.TemplateSyntaxError as e:
            template, syntax = None, f"{e.message} (line {e.lineno})\nTemplateSyntaxError\n"
        if template is not None:
            c = caps(lambda msgs, tools: template.render(messages=msgs, tools=tools, add_generation_prompt=True,
                                                          bos_token=bos, eos_token=eos), source)
            index[variant]["caps"] = c
        for name in CASES:
            with open(os.path.join(cases_dir, name + ".json"), encoding="utf-8") as f:
                doc = json.load(f)
            try:
                if template is None:
                    raise Rejected()
                text = template.render(messages=fit(doc["messages"], c), tools=doc["tools"] or None,
                                       add_generation_prompt=doc["add_generation_prompt"],
                                       bos_token=bos, eos_token=eos, **doc["chat_template_kwargs"])
                path, body = os.path.join(out, name + ".txt"), text
            except Rejected:
                path, body = os.path.join(out, name + ".error"), syntax
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
    print(f"{len(CASES)} cases x ({len(VARIANTS)} family variants + {len(official)} official templates)")


if __name__ == "__main__":
    main()
