package forge.template.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import forge.api.TemplateException;
import forge.api.model.ModelDescriptor;
import forge.api.model.ModelMetadata;
import forge.api.template.ChatDelta;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplate;
import forge.api.template.ChatTemplateProvider;
import forge.api.template.Role;
import forge.api.template.TemplateClaim;
import forge.api.template.TemplateContext;
import forge.api.template.TemplateVariant;
import forge.template.toolkit.TemplateCaps;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The tests every chat-template family runs: each variant renders every golden case exactly as
 * its official template does (or refuses it with the same reason), ends turns at its end-of-turn
 * texts, and its parser loses no text when output is fed one character at a time.
 */
public abstract class ChatTemplateContract {
    private final ChatTemplateProvider provider;
    private final Function<String, TemplateCaps> caps;

    /**
     * @param provider the family under test
     * @param caps     what each variant's renderer takes of the message shapes clients send (see {@link #caps})
     */
    protected ChatTemplateContract(ChatTemplateProvider provider, Function<String, TemplateCaps> caps) {
        this.provider = provider;
        this.caps = caps;
    }

    /** The family under test. */
    public ChatTemplateProvider provider() {
        return provider;
    }

    /** The variant the family claims {@code model} with; fails when it claims none. */
    public String claimedVariant(ModelDescriptor model) {
        return provider().claim(model).orElseThrow().variant();
    }

    /**
     * Asserts that the family claims a model whose GGUF carries the chat template {@code template}
     * as {@code variant}, by that metadata.
     *
     * @return the claim, for its other fields
     */
    public TemplateClaim assertClaimedByTemplate(String template, String variant) {
        TemplateClaim c = provider.claim(Models.model("x", Map.of("tokenizer.chat_template", template)))
                .orElseThrow();
        assertEquals(variant, c.variant());
        assertEquals(TemplateClaim.Rule.METADATA, c.rule());
        return c;
    }

    /**
     * Asserts that the family claims a model known by its id {@code id} alone (no metadata) as
     * {@code variant}, by that name.
     *
     * @return the claim, for its other fields
     */
    public TemplateClaim assertClaimedByName(String id, String variant) {
        TemplateClaim c = provider.claim(Models.model(id, Map.of()))
                .orElseThrow(() -> new AssertionError("'" + id + "' is not claimed"));
        assertEquals(variant, c.variant(), id);
        assertEquals(TemplateClaim.Rule.NAME, c.rule(), id);
        return c;
    }

    /** Asserts that the family claims no model {@code id} with {@code metadata}: another family or the generic engine does. */
    public void assertUnclaimed(String id, Map<String, Object> metadata) {
        assertEquals(Optional.empty(), provider.claim(Models.model(id, metadata)), id + " " + metadata);
    }

    /** The BOS and EOS texts the golden corpus was rendered with for {@code variant}. */
    public TemplateContext context(String variant) {
        String bos = switch (provider().family()) {
            case "llama" -> "<|begin_of_text|>";
            case "gemma" -> "<bos>";
            case "kimi" -> "[BOS]";
            default -> "";
        };
        String eos = switch (provider().family()) {
            case "llama" -> "<|eot_id|>";
            case "gemma" -> "<eos>";
            case "kimi" -> "[EOS]";
            default -> "<|im_end|>";
        };
        return new TemplateContext(
                new ModelDescriptor("golden-" + variant, List.of(), Path.of("golden.gguf"), ModelMetadata.EMPTY),
                bos,
                eos);
    }

    /** The variants checked against the golden corpus; by default all of them. */
    public List<String> goldenVariants() {
        return provider().variants().stream().map(TemplateVariant::name).toList();
    }

    @Test
    public void rendersTheGoldenCorpusByteForByte() {
        List<String> failures = new ArrayList<>();
        int total = 0;
        for (String variant : goldenVariants()) {
            ChatTemplate template = provider().create(variant, context(variant));
            for (GoldenCorpus.Expected e : GoldenCorpus.locate().expected(variant)) {
                total++;
                String where = variant + "/" + e.caseName();
                if (e.text().isPresent()) {
                    try {
                        String got = template.render(e.prompt());
                        if (!got.equals(e.text().get())) {
                            failures.add(where + ": differs\n--- expected\n"
                                    + e.text().get() + "\n--- got\n" + got + "\n---");
                        }
                    } catch (RuntimeException x) {
                        failures.add(where + ": threw " + x);
                    }
                } else {
                    try {
                        template.render(e.prompt());
                        failures.add(where + ": rendered, but the official template raises: "
                                + e.error().get());
                    } catch (TemplateException x) {
                        if (e.raised() && !x.getMessage().equals(e.error().get())) {
                            failures.add(where + ": reason '" + x.getMessage() + "', expected '"
                                    + e.error().get() + "'");
                        }
                    }
                }
            }
        }
        if (!failures.isEmpty()) {
            fail(failures.size() + " of " + total + " golden renders differ:\n" + String.join("\n", failures));
        }
    }

    /**
     * What {@code variant}'s renderer takes of the message shapes clients send ({@link TemplateCaps}):
     * it must be what probing the official template finds, as the golden corpus records it.
     */
    public TemplateCaps caps(String variant) {
        return caps.apply(variant);
    }

    @Test
    public void declaresTheCapabilitiesOfItsOfficialTemplates() {
        for (String variant : goldenVariants()) {
            assertEquals(
                    GoldenCorpus.locate().caps(variant),
                    caps(variant),
                    variant + ": capabilities differ from the official template's");
        }
    }

    @Test
    public void variantNamesAreUniqueAndCreatable() {
        Set<String> seen = new HashSet<>();
        for (TemplateVariant v : provider().variants()) {
            assertTrue(seen.add(v.name()), "duplicate variant " + v.name());
            ChatTemplate t = provider().create(v.name(), context(v.name()));
            assertEquals(v.name(), t.name());
            assertFalse(t.endOfTurn().isEmpty(), v.name() + " has no end-of-turn text");
        }
        assertThrows(IllegalArgumentException.class, () -> provider().create("no-such-variant", context("x")));
    }

    @Test
    public void parserKeepsPlainTextWhenFedCharByChar() {
        String text = "Plain answer with <angle> brackets, a < b and 100% unicode: héllo 🙂.";
        for (TemplateVariant v : provider().variants()) {
            ChatTemplate t = provider().create(v.name(), context(v.name()));
            var prompt = ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "q")));
            if (t.render(prompt).endsWith("<think>\n")) {
                continue; // this variant opens its answer in reasoning; its own tests cover that
            }
            StringBuilder content = new StringBuilder();
            collect(OutputFeeds.feedCharByChar(t.parser(prompt), text), content);
            assertEquals(text, content.toString(), v.name());
        }
    }

    private static void collect(List<ChatDelta> deltas, StringBuilder content) {
        for (ChatDelta d : deltas) {
            if (d instanceof ChatDelta.Content c) {
                content.append(c.text());
            } else {
                fail("unexpected delta " + d);
            }
        }
    }
}
