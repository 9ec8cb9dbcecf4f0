package forge.template.mustache;

import com.github.mustachejava.DefaultMustacheFactory;
import com.github.mustachejava.Mustache;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;

/**
 * Compiles a template plugin's prompt templates and renders them as text.
 *
 * <p>Templates live under {@code META-INF/forge/templates/<family>/} of the plugin's own jar, a
 * path outside any package, and are read through the plugin's class and compiled from a Reader:
 * Mustache's own class-loader lookup cannot see into an encapsulated module. Values are written
 * as they are: prompts are not HTML.
 */
public final class PromptMustache {

    private static final DefaultMustacheFactory FACTORY = new DefaultMustacheFactory() {
        @Override
        public void encode(String value, Writer writer) {
            try {
                writer.write(value); // prompts are not HTML: no escaping
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    private PromptMustache() {}

    /**
     * Compiles {@code META-INF/forge/templates/<family>/<name>.mustache} of the module of {@code owner}.
     *
     * @throws IllegalStateException when the plugin lacks that resource
     */
    public static Mustache compile(Class<?> owner, String family, String name) {
        String resource = "/META-INF/forge/templates/" + family + "/" + name + ".mustache";
        try (InputStream in = owner.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing template resource " + resource + " in " + owner.getModule());
            }
            return FACTORY.compile(new InputStreamReader(in, StandardCharsets.UTF_8), family + "/" + name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Renders a compiled template over a view (maps, lists, strings, booleans). */
    public static String render(Mustache template, Object view) {
        StringWriter out = new StringWriter();
        template.execute(out, view);
        return out.toString();
    }
}
