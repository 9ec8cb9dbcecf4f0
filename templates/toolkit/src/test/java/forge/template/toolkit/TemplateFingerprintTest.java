package forge.template.toolkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TemplateFingerprintTest {

    @Test
    void lineEndingsAndSurroundingBlanksDoNotCountAnythingElseDoes() {
        String t = "{% for m in messages %}\n{{ m.content }}\n{% endfor %}";
        // sha256 of the text itself, as `printf %s "$t" | sha256sum` prints it
        assertEquals(64, TemplateFingerprint.of(t).length());
        assertEquals(TemplateFingerprint.of(t), TemplateFingerprint.of("\n  " + t.replace("\n", "\r\n") + "\n\t "));
        assertEquals(TemplateFingerprint.of(t), TemplateFingerprint.of(t.replace("\n", "\r")));
        assertNotEquals(TemplateFingerprint.of(t), TemplateFingerprint.of(t.replace("\n", " \n")));
        assertNotEquals(TemplateFingerprint.of(t), TemplateFingerprint.of(t + "x"));
        assertEquals("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", TemplateFingerprint.of(" \n"));
    }

    @Test
    void looksUpAKnownTemplate() {
        Map<String, String> known = Map.of(TemplateFingerprint.of("A"), "a");
        assertEquals(Optional.of("a"), TemplateFingerprint.lookup(known, "A\n"));
        assertEquals(Optional.empty(), TemplateFingerprint.lookup(known, "B"));
    }
}
