package forge.template.mustache;

import com.github.mustachejava.Mustache;
import forge.api.template.ChatTemplate;
import java.util.Objects;

/**
 * A chat template whose prompt one compiled Mustache file writes: it holds the variant's name and
 * that file, so a family's template class says only how it builds the view it renders.
 *
 * {@snippet :
 * final class QwenTemplate extends MustacheTemplate implements ToolCallingTemplate {
 *     QwenTemplate(String name) {
 *         super(name, QwenTemplate.class, "qwen", name);   // META-INF/forge/templates/qwen/<name>.mustache
 *     }
 *
 *     public String render(ChatPrompt prompt) {
 *         return renderView(scopeOf(prompt));
 *     }
 * }
 * }
 */
public abstract class MustacheTemplate implements ChatTemplate {
    private final String name;
    private final Mustache mustache;

    /**
     * @param name   the variant's name, {@link #name()}
     * @param owner  a class of the plugin, whose module holds the file
     * @param family the folder under {@code META-INF/forge/templates/}
     * @param file   the file's name there, without {@code .mustache}
     * @throws IllegalStateException when the plugin lacks the file
     */
    protected MustacheTemplate(String name, Class<?> owner, String family, String file) {
        this.name = Objects.requireNonNull(name);
        this.mustache = PromptMustache.compile(owner, family, file);
    }

    @Override
    public final String name() {
        return name;
    }

    /** The file rendered over {@code view} (maps, lists, strings, booleans). */
    protected final String renderView(Object view) {
        return PromptMustache.render(mustache, view);
    }
}
