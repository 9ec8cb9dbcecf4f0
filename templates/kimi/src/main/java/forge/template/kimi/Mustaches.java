package forge.template.kimi;

import com.github.mustachejava.DefaultMustacheFactory;
import com.github.mustachejava.Mustache;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;

/** Compiles this plugin's templates from a Reader (the module is encapsulated) without HTML escaping. */
final class Mustaches {

    private static final DefaultMustacheFactory FACTORY = new DefaultMustacheFactory() {
        @Override
        public void encode(String value, Writer writer) {
            try {
                writer.write(value); // prompts are not HTML
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    private Mustaches() {
    }

    static Mustache compile(String name) {
        String resource = "/META-INF/forge/templates/kimi/" + name + ".mustache";
        try (InputStream in = Mustaches.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing template resource " + resource);
            }
            return FACTORY.compile(new InputStreamReader(in, StandardCharsets.UTF_8), name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String run(Mustache m, Object scope) {
        StringWriter out = new StringWriter();
        m.execute(out, scope);
        return out.toString();
    }
}
