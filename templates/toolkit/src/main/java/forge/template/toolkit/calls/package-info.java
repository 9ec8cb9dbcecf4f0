/**
 * Reading a model's output back: {@link forge.template.toolkit.calls.MarkupParser} streams
 * content, reasoning and tool calls out of the markers a family's format uses.
 *
 * {@snippet :
 * OutputParser parser = new MarkupParser(new MarkupParser.Syntax("<think>", "</think>", false,
 *         "<tool_call>", "</tool_call>", false, block -> List.of(MarkupParser.jsonCall(block, "arguments"))));
 * parser.feed("<think>hm</think>Sure.");   // [Reasoning("hm"), Content("Sure.")]
 * }
 */
package forge.template.toolkit.calls;
