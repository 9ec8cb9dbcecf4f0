package forge.template.generic;

import forge.api.template.ChatMessage;
import forge.api.template.Role;
import java.util.List;

/** Messages as a client sent them: the fields the HTTP reader took and the JSON object itself ({@link ChatMessage#wire}). */
final class SentMessages {
    private SentMessages() {}

    /** A message of {@code role} without calls whose text is {@code content}, sent as {@code wire}. */
    static ChatMessage sent(Role role, String content, String wire) {
        return new ChatMessage(role, content, "", List.of(), "", "", wire);
    }
}
