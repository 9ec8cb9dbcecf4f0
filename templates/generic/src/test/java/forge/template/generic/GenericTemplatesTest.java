package forge.template.generic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import forge.api.TemplateException;
import forge.api.model.ModelDescriptor;
import forge.api.model.ModelMetadata;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplate;
import forge.api.template.Role;
import forge.api.template.TemplateContext;
import forge.api.template.ToolCall;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GenericTemplatesTest {

    private final ChatTemplate template = new GenericTemplates()
            .create(
                    "generic",
                    new TemplateContext(
                            new ModelDescriptor("m", List.of(), Path.of("m.gguf"), ModelMetadata.EMPTY), "", ""));

    @Test
    void rendersChatMlWithGenerationPrompt() {
        String prompt = template.render(ChatPrompt.of(List.of(
                ChatMessage.of(Role.SYSTEM, "Be <brief> & \"exact\"."), ChatMessage.of(Role.USER, "héllo 🙂"))));
        assertEquals(
                "<|im_start|>system\nBe <brief> & \"exact\".<|im_end|>\n"
                        + "<|im_start|>user\nhéllo 🙂<|im_end|>\n<|im_start|>assistant\n",
                prompt);
    }

    @Test
    void omitsGenerationPromptWhenAskedAndMapsDeveloperToSystem() {
        String prompt = template.render(new ChatPrompt(
                List.of(
                        ChatMessage.of(Role.DEVELOPER, "rules"),
                        ChatMessage.of(Role.USER, "q"),
                        ChatMessage.of(Role.ASSISTANT, "a")),
                List.of(),
                false,
                Map.of()));
        assertEquals(
                "<|im_start|>system\nrules<|im_end|>\n<|im_start|>user\nq<|im_end|>\n"
                        + "<|im_start|>assistant\na<|im_end|>\n",
                prompt);
    }

    @Test
    void rendersAssistantToolCallsAsText() {
        var call = ChatMessage.calling("", List.of(new ToolCall("c1", "f", "{\"x\":1}")));
        String prompt = template.render(
                new ChatPrompt(List.of(ChatMessage.of(Role.USER, "q"), call), List.of(), false, Map.of()));
        assertEquals(
                "<|im_start|>user\nq<|im_end|>\n<|im_start|>assistant\n<tool_call>\n"
                        + "{\"name\": \"f\", \"arguments\": {\"x\":1}}\n</tool_call><|im_end|>\n",
                prompt);
    }

    @Test
    void refusesAnEmptyConversation() {
        assertThrows(TemplateException.class, () -> template.render(ChatPrompt.of(List.of())));
    }

    @Test
    void endsTurnsAtImEnd() {
        assertEquals(List.of("<|im_end|>"), template.endOfTurn());
    }
}
