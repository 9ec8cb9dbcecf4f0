package forge.template.toolkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import forge.api.model.ModelDescriptor;
import forge.api.model.ModelMetadata;
import forge.api.template.ChatTemplate;
import forge.api.template.TemplateClaim;
import forge.api.template.TemplateContext;
import forge.api.template.TemplateVariant;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What the family providers share: name and variants given once, unknown variants refused, claims from the model's names. */
class TemplateFamilyTest {

    /** A family of two variants named by "one" or "two" in a model's name. */
    static final class Numbers extends TemplateFamily {
        Numbers() {
            super(
                    "numbers",
                    List.of(new TemplateVariant("one", "the first"), new TemplateVariant("two", "the second")));
        }

        @Override
        public ChatTemplate create(String variant, TemplateContext context) {
            String v = requireVariant(variant);
            return new ChatTemplate() {
                @Override
                public String name() {
                    return v;
                }

                @Override
                public String render(forge.api.template.ChatPrompt prompt) {
                    return "";
                }
            };
        }

        /** Its one official template, for the variant "one". */
        static final Map<String, String> OFFICIAL = Map.of(TemplateFingerprint.of("{{ one }}"), "one");

        @Override
        public Optional<TemplateClaim> claim(ModelDescriptor model) {
            return claimInOrder(model, OFFICIAL, Numbers::variantOf, byArchitecture(Numbers::variantOfArchitecture));
        }

        static Optional<String> variantOfArchitecture(String arch) {
            return arch.equals("numbers2") ? Optional.of("two") : Optional.empty();
        }

        static Optional<String> variantOf(String name) {
            return name.contains("two")
                    ? Optional.of("two")
                    : name.contains("one") ? Optional.of("one") : Optional.empty();
        }
    }

    private static ModelDescriptor model(String name, String basename) {
        return model("m", name, basename, Map.of());
    }

    private static ModelDescriptor model(String id, String name, String basename, Map<String, Object> more) {
        Map<String, Object> values = new HashMap<>(more);
        if (name != null) {
            values.put("general.name", name);
        }
        if (basename != null) {
            values.put("general.basename", basename);
        }
        return new ModelDescriptor(id, List.of(), Path.of(id + ".gguf"), new ModelMetadata(values, Map.of()));
    }

    @Test
    void theFamilyAndItsVariantsAreWhatItWasGiven() {
        Numbers f = new Numbers();
        assertEquals("numbers", f.family());
        assertEquals(
                List.of("one", "two"),
                f.variants().stream().map(TemplateVariant::name).toList());
        assertThrows(UnsupportedOperationException.class, () -> f.variants().clear());
    }

    @Test
    void aVariantTheFamilyHasNotIsRefusedNamingBoth() {
        Numbers f = new Numbers();
        TemplateContext context = new TemplateContext(model(null, null), "", "");
        assertEquals("two", f.create("two", context).name());
        var e = assertThrows(IllegalArgumentException.class, () -> f.create("three", context));
        assertEquals("unknown variant 'three' of family numbers", e.getMessage());
    }

    @Test
    void theModelsOwnNamesClaimNameFirstThenBasename() {
        Numbers f = new Numbers();
        assertEquals(
                Optional.of(new TemplateClaim("one", TemplateClaim.Rule.METADATA, 50, "general.name 'model one'")),
                f.claim(model("model one", "two-base")));
        assertEquals(
                Optional.of(new TemplateClaim("two", TemplateClaim.Rule.METADATA, 50, "general.name 'two-base'")),
                f.claim(model("Model", "two-base")));
        assertEquals(Optional.empty(), f.claim(model("Model", null)));
        assertEquals(Optional.empty(), f.claim(model(null, null)));
        assertEquals(
                List.of("a", "b"), TemplateFamily.metadataNames(model("a", "b").metadata()));
    }

    @Test
    void claimsInOrderTheOfficialTemplateThenTheNamesThenTheSignsThenTheId() {
        Numbers f = new Numbers();
        Map<String, Object> official = Map.of("tokenizer.chat_template", "{{ one }}");
        assertEquals(
                Optional.of(new TemplateClaim(
                        "one", TemplateClaim.Rule.METADATA, 100, "tokenizer.chat_template is one's official one")),
                f.claim(model("two", "two", "two", official)));
        // Another template is the generic plugin's, whatever the names say.
        assertEquals(
                Optional.empty(), f.claim(model("two", "two", null, Map.of("tokenizer.chat_template", "{{ two }}"))));
        // A blank template is none.
        assertEquals(
                "one",
                f.claim(model("x", "one", null, Map.of("tokenizer.chat_template", " ")))
                        .orElseThrow()
                        .variant());
        Map<String, Object> signs = Map.of("general.architecture", "numbers2");
        assertEquals(
                Optional.of(new TemplateClaim("one", TemplateClaim.Rule.METADATA, 50, "general.name 'one'")),
                f.claim(model("x", "one", null, signs)));
        assertEquals(
                Optional.of(new TemplateClaim("two", TemplateClaim.Rule.METADATA, 30, "general.architecture numbers2")),
                f.claim(model("one", null, null, signs)));
        assertEquals(
                Optional.of(new TemplateClaim("one", TemplateClaim.Rule.NAME, 50, "model name 'one'")),
                f.claim(model("one", null, null, Map.of())));
    }
}
