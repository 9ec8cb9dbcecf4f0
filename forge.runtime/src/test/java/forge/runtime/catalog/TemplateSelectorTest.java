package forge.runtime.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.ForgeException;
import forge.api.model.ModelDescriptor;
import forge.api.model.ModelMetadata;
import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplate;
import forge.api.template.ChatTemplateProvider;
import forge.api.template.TemplateContext;
import forge.api.template.TemplateVariant;
import forge.runtime.plugin.Discovered;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The configured name's lookup: a family's variant wins a name the generic plugin also answers to. */
class TemplateSelectorTest {

    private static final ModelDescriptor MODEL =
            new ModelDescriptor("m", List.of(), Path.of("m.gguf"), ModelMetadata.EMPTY);

    /** A provider of {@code family} with the given variant names. */
    private record Family(String family, List<String> names) implements ChatTemplateProvider {
        @Override
        public List<TemplateVariant> variants() {
            return names.stream()
                    .map(n -> new TemplateVariant(n, family + "'s " + n))
                    .toList();
        }

        @Override
        public ChatTemplate create(String variant, TemplateContext context) {
            return new ChatTemplate() {
                @Override
                public String name() {
                    return variant;
                }

                @Override
                public String render(ChatPrompt prompt) {
                    return family;
                }
            };
        }
    }

    private static Discovered<ChatTemplateProvider> found(ChatTemplateProvider p) {
        return new Discovered<>(p, "test." + p.family(), "boot");
    }

    // The generic plugin found first, as discovery order may have it.
    private final TemplateSelector selector = new TemplateSelector(List.of(
            found(new Family("generic", List.of("generic", "chatml", "llama2", "kimi-k2"))),
            found(new Family("kimi", List.of("kimi-k2", "kimi-k2-instruct")))));

    @Test
    void aFamilysVariantWinsANameTheGenericPluginAlsoHas() {
        assertEquals("kimi", selector.select(MODEL, "kimi-k2").provider().family());
        assertEquals("generic", selector.select(MODEL, "llama2").provider().family());
        assertEquals("generic", selector.select(MODEL, "").provider().family());
    }

    @Test
    void listsEachNameOnceTheFamiliesFirst() {
        assertEquals(List.of("kimi-k2", "kimi-k2-instruct", "generic", "chatml", "llama2"), selector.variants());
    }

    @Test
    void anUnknownNameListsEveryAcceptedNameByFamily() {
        ForgeException e = assertThrows(ForgeException.class, () -> selector.select(MODEL, "llama-2"));
        assertTrue(
                e.getMessage()
                        .startsWith("unknown chat template 'llama-2'; installed: kimi (kimi-k2, kimi-k2-instruct); "
                                + "generic (generic, chatml, llama2, kimi-k2)"),
                e.getMessage());
        assertTrue(e.getMessage().contains("llama-server's built-in chat templates"), e.getMessage());
    }
}
