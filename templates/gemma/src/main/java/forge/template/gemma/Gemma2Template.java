package forge.template.gemma;

import forge.api.TemplateException;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.Role;
import forge.lib.text.PythonText;
import forge.template.mustache.MustacheTemplate;
import forge.template.toolkit.TemplateCaps;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Gemma 2 and Gemma 3: {@code <start_of_turn>user|model} turns, no system role and strict
 * user/model alternation (the official template raises on both, and so does this with its
 * words), no tool syntax. Tools are ignored, as the official template ignores them.
 */
final class Gemma2Template extends MustacheTemplate {

    static final String NO_SYSTEM = "System role not supported";
    static final String ALTERNATE = "Conversation roles must alternate user/assistant/user/assistant/...";

    /** The official template's capabilities (checked against the golden corpus): content printed as a string. */
    static final TemplateCaps CAPS = new TemplateCaps(true, false, true);

    private final String bos;

    Gemma2Template(String bos) {
        super(GemmaTemplates.GEMMA2, Gemma2Template.class, "gemma", "gemma2");
        this.bos = bos.isEmpty() ? "<bos>" : bos;
    }

    @Override
    public String render(ChatPrompt prompt) {
        List<ChatMessage> messages = CAPS.fittedMessages(prompt);
        // A developer message is OpenAI's new name for a system message: refused alike.
        if (messages.getFirst().role() == Role.SYSTEM || messages.getFirst().role() == Role.DEVELOPER) {
            throw new TemplateException(NO_SYSTEM);
        }
        List<Map<String, Object>> turns = new ArrayList<>();
        for (int i = 0; i < messages.size(); i++) {
            ChatMessage m = messages.get(i);
            if ((m.role() == Role.USER) != (i % 2 == 0)) {
                throw new TemplateException(ALTERNATE);
            }
            Map<String, Object> turn = new HashMap<>();
            turn.put("role", m.role() == Role.ASSISTANT ? "model" : m.role().wire());
            turn.put("content", PythonText.strip(m.content()));
            turns.add(turn);
        }
        Map<String, Object> scope = new HashMap<>();
        scope.put("bos", bos);
        scope.put("turns", turns);
        scope.put("generationPrompt", prompt.addGenerationPrompt());
        return renderView(scope);
    }

    @Override
    public List<String> endOfTurn() {
        return List.of("<end_of_turn>");
    }

    @Override
    public boolean rendersBos() {
        return true;
    }
}
