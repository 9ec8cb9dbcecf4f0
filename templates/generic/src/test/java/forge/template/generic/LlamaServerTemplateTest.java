package forge.template.generic;

import static forge.template.generic.SentMessages.sent;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.Role;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The bundled llama-server formats, without the natives: each index entry compiles and ends turns,
 * and llama.cpp's own expectations (tests/test-chat-template.cpp, its shared conversation) hold.
 * Byte equality with llama.cpp for every name and many conversations is checked against the real
 * {@code llama_chat_apply_template} in plugins/llamacpp ({@code BuiltinChatTemplatesTest}).
 */
class LlamaServerTemplateTest {

    /** LLM_CHAT_TEMPLATES of llama.cpp's src/llama-chat.cpp, but chatml (the generic family's ChatML). */
    private static final List<String> LLAMA_CPP_NAMES = List.of(
            "llama2",
            "llama2-sys",
            "llama2-sys-bos",
            "llama2-sys-strip",
            "mistral-v1",
            "mistral-v3",
            "mistral-v3-tekken",
            "mistral-v7",
            "mistral-v7-tekken",
            "phi3",
            "phi4",
            "falcon3",
            "zephyr",
            "monarch",
            "gemma",
            "orion",
            "openchat",
            "vicuna",
            "vicuna-orca",
            "deepseek",
            "deepseek2",
            "deepseek3",
            "deepseek-ocr",
            "command-r",
            "llama3",
            "chatglm3",
            "chatglm4",
            "glmedge",
            "minicpm",
            "exaone3",
            "exaone4",
            "exaone-moe",
            "rwkv-world",
            "granite",
            "granite-4.0",
            "granite-4.1",
            "gigachat",
            "megrez",
            "yandex",
            "bailing",
            "bailing-think",
            "bailing2",
            "llama4",
            "smolvlm",
            "hunyuan-moe",
            "gpt-oss",
            "hunyuan-dense",
            "hunyuan-vl",
            "kimi-k2",
            "seed_oss",
            "grok-2",
            "pangu-embedded",
            "solar-open");

    /** The conversation of llama.cpp's tests/test-chat-template.cpp. */
    private static final List<ChatMessage> CONVERSATION = List.of(
            ChatMessage.of(Role.SYSTEM, "You are a helpful assistant"),
            ChatMessage.of(Role.USER, "Hello"),
            ChatMessage.of(Role.ASSISTANT, "Hi there"),
            ChatMessage.of(Role.USER, "Who are you"),
            ChatMessage.of(Role.ASSISTANT, "   I am an assistant   "),
            ChatMessage.of(Role.USER, "Another question"));

    @Test
    void theIndexHasEveryNameOfLlamaCppAndEachCompilesAndEndsTurns() {
        assertEquals(LLAMA_CPP_NAMES, new ArrayList<>(LlamaServerTemplate.FORMATS.keySet()));
        for (String name : LLAMA_CPP_NAMES) {
            LlamaServerTemplate t = LlamaServerTemplate.of(name);
            assertEquals(name, t.name());
            assertFalse(t.endOfTurn().isEmpty(), name);
            t.render(ChatPrompt.of(CONVERSATION));
        }
    }

    @Test
    void aNameNotInTheIndexIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> LlamaServerTemplate.of("chatml"));
        assertThrows(IllegalArgumentException.class, () -> LlamaServerTemplate.of("llama-2"));
    }

    /** The expected_output of llama.cpp's test cases whose template it detects as these names (its add_generation_prompt is true). */
    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            llama2           | `[INST] You are a helpful assistant\\nHello [/INST]Hi there</s>[INST] Who are you [/INST]   I am an assistant   </s>[INST] Another question [/INST]`
            llama2-sys-bos   | `[INST] <<SYS>>\\nYou are a helpful assistant\\n<</SYS>>\\n\\nHello [/INST]Hi there</s><s>[INST] Who are you [/INST]   I am an assistant   </s><s>[INST] Another question [/INST]`
            llama2-sys-strip | `[INST] <<SYS>>\\nYou are a helpful assistant\\n<</SYS>>\\n\\nHello [/INST]Hi there</s>[INST] Who are you [/INST]I am an assistant</s>[INST] Another question [/INST]`
            monarch          | `system\\nYou are a helpful assistant</s>\\n<s>user\\nHello</s>\\n<s>assistant\\nHi there</s>\\n<s>user\\nWho are you</s>\\n<s>assistant\\n   I am an assistant   </s>\\n<s>user\\nAnother question</s>\\n<s>assistant\\n`
            gemma            | `<start_of_turn>user\\nYou are a helpful assistant\\n\\nHello<end_of_turn>\\n<start_of_turn>model\\nHi there<end_of_turn>\\n<start_of_turn>user\\nWho are you<end_of_turn>\\n<start_of_turn>model\\nI am an assistant<end_of_turn>\\n<start_of_turn>user\\nAnother question<end_of_turn>\\n<start_of_turn>model\\n`
            orion            | `Human: You are a helpful assistant\\n\\nHello\\n\\nAssistant: </s>Hi there</s>Human: Who are you\\n\\nAssistant: </s>   I am an assistant   </s>Human: Another question\\n\\nAssistant: </s>`
            openchat         | `You are a helpful assistant<|end_of_turn|>GPT4 Correct User: Hello<|end_of_turn|>GPT4 Correct Assistant: Hi there<|end_of_turn|>GPT4 Correct User: Who are you<|end_of_turn|>GPT4 Correct Assistant:    I am an assistant   <|end_of_turn|>GPT4 Correct User: Another question<|end_of_turn|>GPT4 Correct Assistant:`
            deepseek         | `You are a helpful assistant### Instruction:\\nHello\\n### Response:\\nHi there\\n<|EOT|>\\n### Instruction:\\nWho are you\\n### Response:\\n   I am an assistant   \\n<|EOT|>\\n### Instruction:\\nAnother question\\n### Response:\\n`
            """)
    void rendersLlamaCppsOwnExpectations(String name, String expected) {
        assertEquals(expected.replace("\\n", "\n"), LlamaServerTemplate.of(name).render(ChatPrompt.of(CONVERSATION)));
    }

    @Test
    void trimsOnlyWhatCsIsspaceStrips() {
        String prompt = LlamaServerTemplate.of("llama3")
                .render(new ChatPrompt(
                        List.of(ChatMessage.of(Role.USER, " \t\u000b\f\r\n\u00a0x\u3000 \n")),
                        List.of(),
                        false,
                        Map.of()));
        assertEquals("<|start_header_id|>user<|end_header_id|>\n\n\u00a0x\u3000<|eot_id|>", prompt);
    }

    @Test
    void joinsContentPartsWithANewlineAsLlamaServerDoes() {
        var parts = sent(
                Role.USER,
                "ab",
                "{\"role\": \"user\", \"content\": [{\"type\": \"text\", \"text\": \"a\"}, {\"type\": \"text\", \"text\": \"\"}, "
                        + "{\"type\": \"text\", \"text\": \"b\"}]}");
        assertEquals("a\n\nb", LlamaServerTemplate.text(parts));
        var leadingEmpty = sent(
                Role.USER,
                "a",
                "{\"role\": \"user\", \"content\": [{\"type\": \"text\", \"text\": \"\"}, {\"type\": \"text\", \"text\": \"a\"}]}");
        assertEquals("a", LlamaServerTemplate.text(leadingEmpty));
        assertEquals(
                "plain",
                LlamaServerTemplate.text(sent(Role.USER, "plain", "{\"role\": \"user\", \"content\": \"plain\"}")));
    }

    @Test
    void rendersRolesAndTextOnly() {
        var call = ChatMessage.calling("", List.of(new forge.api.template.ToolCall("c1", "f", "{}")));
        String prompt = LlamaServerTemplate.of("phi3")
                .render(new ChatPrompt(
                        List.of(ChatMessage.of(Role.USER, "q"), call, ChatMessage.of(Role.TOOL, "42")),
                        List.of(),
                        false,
                        Map.of()));
        assertEquals("<|user|>\nq<|end|>\n<|assistant|>\n<|end|>\n<|tool|>\n42<|end|>\n", prompt);
    }
}
